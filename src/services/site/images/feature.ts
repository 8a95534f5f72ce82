import type { Feature } from '../../../http/feature.js';
import { refuseBodyOnError } from '../../../http/refuse-body.js';
import { createSharedRateLimiter, type SharedRateLimiter } from '../../../db/shared-rate-limiter.js';
import type { Guards } from '../auth/guards.js';
import type { SiteDeps, SiteLocals } from '../context.js';
import type { ImageHostClient } from '../image-host/client.js';
import { createImageProxy } from './image-proxy.js';
import { imageRedirect } from './image-redirect.js';
import { UPLOAD_WINDOW_MS, UPLOADS_PER_WINDOW } from './limits.js';
import { uploadHandler } from './upload-route.js';

// Image upload (POST /apps/api/media/upload): logged-in users' images, relayed to the image host (service B);
// and the in-site name of an image on it (redirected to, or fetched and sent).

/** `imageHost` is the site's one client of the image host: the site closes it, after its features. */
export function imagesFeature(deps: SiteDeps, guards: Guards, imageHost: ImageHostClient): Feature<SiteLocals> {
  const limiter: SharedRateLimiter = createSharedRateLimiter(deps.sql, {
    name: 'images',
    limit: UPLOADS_PER_WINDOW,
    windowMs: UPLOAD_WINDOW_MS,
  });
  // An image host on https is redirected to; one on plain http is fetched and sent by the site (image-proxy.ts).
  const proxy = new URL(deps.config.imageHostPublicUrl).protocol === 'https:' ? undefined : createImageProxy(deps.config.imageHostUrl);
  return {
    routes: [
      {
        method: 'POST',
        path: '/apps/api/media/upload',
        // The guard refuses before any body byte is read; refuseBodyOnError then
        // lets the client finish sending so it reads the 401 (or a token's 403).
        use: [refuseBodyOnError, guards.userOrToken('media:upload')],
        handler: uploadHandler(imageHost, limiter),
      },
      { method: 'GET', path: '/img/:timestamp/:file', handler: proxy ? proxy.handler : imageRedirect(deps.config.imageHostPublicUrl) },
    ],
    close: async () => {
      await proxy?.close();
    },
  };
}
