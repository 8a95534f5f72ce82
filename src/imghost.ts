// Service B alone: `node dist/imghost.js` under a process manager.
import { createRootLogger, fatal, readConfigOrExit, startImghostService } from './boot.js';
import { onShutdownSignal } from './core/server.js';

const config = readConfigOrExit();
const log = createRootLogger(config);
const imghost = await startImghostService(config, log).catch((error) => fatal(log, 'image host could not start', error));
log.info('image host listening', { url: imghost.server.url, images: config.imagesDir });
onShutdownSignal(log, () => imghost.close());
