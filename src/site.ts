// Service A alone: `node dist/site.js` under a process manager.
import { createRootLogger, openDatabase, readConfigOrExit, startSiteService } from './boot.js';
import { startLifecycle } from './lifecycle.js';
import { surviveStrayConnectionFailures } from './db/stray-rejections.js';

const config = readConfigOrExit();
const log = createRootLogger(config);
const lifecycle = startLifecycle(log);
const database = await lifecycle.step('database unavailable', (signal) => openDatabase(config, log, signal));
// The pool's own work (LISTEN reconnects, cancels) may fail with nobody awaiting it: logged, not fatal.
surviveStrayConnectionFailures(log, database.sql);
const site = await lifecycle.step('site could not start', () => startSiteService(config, log, database.sql));
log.info('site listening', { url: site.server.url, public: config.publicUrl });
