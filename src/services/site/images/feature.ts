import type { Feature } from '../../../http/feature.js';
import { refuseBodyOnError } from '../../../http/refuse-body.js';
import { createSharedRateLimiter, type SharedRateLimiter } from '../../../db/shared-rate-limiter.js';
import type { Guards } from '../auth/guards.js';
import type { SiteDeps, SiteLocals } from '../context.js';
import { createImageHostClient } from './image-host-client.js';
import { createImageProxy } from './image-proxy.js';
import { imageRedirect } from './image-redirect.js';
import { DEFAULT_IMAGE_HOST_LIMITS, UPLOAD_WINDOW_MS, UPLOADS_PER_WINDOW, type ImageHostLimits } from './limits.js';
import { uploadHandler } from './upload-route.js';

// Media upload: logged-in users' images, relayed to the image host (service B);
// and the in-site name of an image on it (redirected to, or fetched and sent).

export interface ImagesOptions {
  /** Timeouts and sizes for the image host; tests shorten them. */
  imageHostLimits?: Partial<ImageHostLimits>;
}

export function imagesFeature(deps: SiteDeps, guards: Guards, options: ImagesOptions = {}): Feature<SiteLocals> {
  const client = createImageHostClient(
    { url: deps.config.imageHostUrl, publicUrl: deps.config.imageHostPublicUrl, token: deps.config.imghostUploadToken },
    { ...DEFAULT_IMAGE_HOST_LIMITS, ...options.imageHostLimits },
  );
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
        handler: uploadHandler(client, limiter),
      },
      { method: 'GET', path: '/img/:timestamp/:file', handler: proxy ? proxy.handler : imageRedirect(deps.config.imageHostPublicUrl) },
    ],
    close: async () => {
      await client.close();
      await proxy?.close();
    },
  };
}
