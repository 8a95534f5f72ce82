// `npm run migrate`: apply pending sql/ migrations and exit.
import { createRootLogger, fatal, openDatabase, readConfigOrExit } from './boot.js';

const config = readConfigOrExit();
const log = createRootLogger(config);
const database = await openDatabase(config, log).catch((error) => fatal(log, 'migration failed', error));
await database.close();
log.info('migrations are up to date');
