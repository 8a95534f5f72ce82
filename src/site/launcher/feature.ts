import { HttpError } from '../../http/errors.js';
import type { Feature } from '../../http/feature.js';
import type { SiteDeps, SiteLocals } from '../context.js';
import { sendPrepared } from '../../http/prepared-answer.js';
import { createLauncherConfigSource } from './config-source.js';

/** GET /api/info and GET /api/fastdownload, served from LAUNCHER_CONFIG (see document.ts for the rules). */
export function launcherFeature(deps: SiteDeps): Feature<SiteLocals> {
  const source = createLauncherConfigSource({ path: deps.config.launcherConfig, log: deps.log.child({ component: 'launcher' }) });
  return {
    routes: [
      {
        method: 'GET',
        path: '/api/info',
        handler: (ctx) => {
          const info = source.answers().info;
          // No file ever read is a configuration failure, 500 INTERNAL.
          if (!info) throw new HttpError(500, 'INTERNAL', 'Launcher information is not available');
          sendPrepared(ctx, info);
        },
      },
      {
        method: 'GET',
        path: '/api/fastdownload',
        // Without a usable file this is {success: true, enabled: false, versions: []}.
        handler: (ctx) => sendPrepared(ctx, source.answers().fastdownload),
      },
    ],
    close: () => source.close(),
  };
}
