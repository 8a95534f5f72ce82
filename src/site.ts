// Service A alone: `node dist/site.js` under a process manager.
import { createRootLogger, fatal, openDatabase, readConfigOrExit, startSiteService } from './boot.js';
import { onShutdownSignal } from './core/server.js';

const config = readConfigOrExit();
const log = createRootLogger(config);
const database = await openDatabase(config, log).catch((error) => fatal(log, 'database unavailable', error));
const site = await startSiteService(config, log, database.sql).catch((error) => fatal(log, 'site could not start', error));
log.info('site listening', { url: site.server.url, public: config.publicUrl });
onShutdownSignal(log, async () => {
  await site.close();
  await database.close();
});
