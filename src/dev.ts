// `npm start`: both services in one process, for trying the project out. Without
// DATABASE_URL it runs an embedded PostgreSQL and stops it again on Ctrl-C.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createRootLogger, fatal, openDatabase, readConfigOrExit, startImghostService, startSiteService } from './boot.js';
import { projectRoot } from './core/project-root.js';
import { onShutdownSignal } from './core/server.js';

if (!process.env.LAUNCHER_CONFIG && !existsSync(join(process.cwd(), 'config', 'launcher.json'))) {
  process.env.LAUNCHER_CONFIG = join(projectRoot(), 'config', 'launcher.example.json');
}
const config = readConfigOrExit();
const log = createRootLogger(config);
const database = await openDatabase(config, log).catch((error) => fatal(log, 'database unavailable', error));
const stopDatabase = () => database.close().catch(() => {});
const imghost = await startImghostService(config, log).catch(async (error) => {
  await stopDatabase();
  return fatal(log, 'image host could not start', error);
});
const site = await startSiteService(config, log, database.sql).catch(async (error) => {
  await imghost.close();
  await stopDatabase();
  return fatal(log, 'site could not start', error);
});
process.stdout.write(`\n  site:       ${site.server.url}\n  image host: ${imghost.server.url}\n\n  Ctrl-C stops both${database.embedded ? ' and the embedded PostgreSQL' : ''}.\n\n`);
onShutdownSignal(log, async () => {
  await Promise.all([site.close(), imghost.close()]);
  await database.close();
});
