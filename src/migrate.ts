// `npm run migrate`: apply pending sql/ migrations and exit. A signal meanwhile
// rolls back the migration in flight, stops the embedded PostgreSQL and exits 130.
// `npm run migrate -- --adopt-pre-release` first records a database migrated by the
// whole pre-release chain (sql/001_init..071) as the folded one (src/db/pre-release-chain.ts).
import { createRootLogger, openDatabase, readConfigOrExit } from './boot.js';
import { ADOPT_FLAG } from './db/pre-release-chain.js';
import { startLifecycle } from './lifecycle.js';

const config = readConfigOrExit();
const log = createRootLogger(config);
const lifecycle = startLifecycle(log, { exitCodeOnSignal: 130 });
const database = await lifecycle.step('migration failed', (signal) => openDatabase(config, log, signal, { adoptPreRelease: process.argv.includes(ADOPT_FLAG) }));
await database.close();
log.info('migrations are up to date');
