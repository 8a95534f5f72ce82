// `npm run migrate`: apply pending sql/ migrations and exit. A signal meanwhile
// rolls back the migration in flight, stops the embedded PostgreSQL and exits 130.
// A database of the pre-release migrations is carried over or refused first
// (src/db/pre-release-chain.ts), as at every start.
import { createRootLogger, openDatabase, readConfigOrExit } from './boot.js';
import { startLifecycle } from './lifecycle.js';

const config = readConfigOrExit();
const log = createRootLogger(config);
const lifecycle = startLifecycle(log, { exitCodeOnSignal: 130 });
const database = await lifecycle.step('migration failed', (signal) => openDatabase(config, log, signal));
await database.close();
log.info('migrations are up to date');
