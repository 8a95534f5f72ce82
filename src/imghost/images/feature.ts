import type { Feature } from '../../core/feature.js';
import type { ImghostDeps, ImghostLocals } from '../context.js';
import { configureSharp, DECODE_CONCURRENCY, MAX_WAITING_DECODES } from './imaging.js';
import { createTaskQueue } from '../../core/task-queue.js';
import { createPreviews } from './previews.js';
import { imageNotFound, serveImage } from './serve.js';
import { openImageStore } from './store.js';
import { uploadImage } from './upload.js';

/** Upload, originals and on-demand WebP previews (storage layout: store.ts). */
export async function imagesFeature(deps: ImghostDeps): Promise<Feature<ImghostLocals>> {
  configureSharp();
  const log = deps.log.child({ feature: 'images' });
  const store = await openImageStore(deps.config.imagesDir, log);
  // One line for uploads' checks and previews' conversions: both decode images.
  const limiter = createTaskQueue({ concurrency: DECODE_CONCURRENCY, maxWaiting: MAX_WAITING_DECODES });
  const previews = createPreviews(store, limiter, log);

  return {
    routes: [
      {
        method: 'POST',
        path: '/api/upload',
        handler: uploadImage({
          store,
          limiter,
          maxFileBytes: deps.config.imghostMaxBytes,
          token: deps.config.imghostUploadToken,
        }),
      },
      { method: 'GET', path: '/img/:timestamp/:file', handler: serveImage(store, previews) },
      // Any other shape under /img (a missing segment, one too many, or a path that
      // a client normalised "../" out of) gets the same text answer as a missing image.
      {
        method: 'GET',
        path: '/img/*',
        handler: () => {
          throw imageNotFound();
        },
      },
    ],
    close: () => previews.settle(),
  };
}
