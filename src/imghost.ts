// Service B alone: `node dist/imghost.js` under a process manager.
import { createRootLogger, readConfigOrExit, startImghostService } from './boot.js';
import { startLifecycle } from './lifecycle.js';

const config = readConfigOrExit();
const log = createRootLogger(config);
const lifecycle = startLifecycle(log);
const imghost = await lifecycle.step('image host could not start', () => startImghostService(config, log));
log.info('image host listening', { url: imghost.server.url, images: config.imagesDir });
