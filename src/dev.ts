// `npm start`: both services in one process, for trying the project out. Without
// DATABASE_URL it runs an embedded PostgreSQL and stops it again on Ctrl-C, at any
// moment, start-up included.
import { createRootLogger, openDatabase, readConfigOrExit, startImghostService, startSiteService } from './boot.js';
import { startLifecycle } from './lifecycle.js';
import { surviveStrayConnectionFailures } from './db/stray-rejections.js';
import { flushLog } from './lib/log.js';

const config = readConfigOrExit({ exampleLauncherConfig: true });
const log = createRootLogger(config);
const lifecycle = startLifecycle(log);
const database = await lifecycle.step('database unavailable', (signal) => openDatabase(config, log, signal));
// The pool's own work (LISTEN reconnects, cancels) may fail with nobody awaiting it: logged, not fatal.
surviveStrayConnectionFailures(log, database.sql);
const imghost = await lifecycle.step('image host could not start', () => startImghostService(config, log));
const site = await lifecycle.step('site could not start', () => startSiteService(config, log, database.sql));
// The log's lines of the start-up first: the addresses come after them, not in their midst.
flushLog();
process.stdout.write(`\n  site:       ${site.server.url}\n  image host: ${imghost.server.url}\n\n  Ctrl-C stops both${database.embedded ? ' and the embedded PostgreSQL' : ''}.\n\n`);
