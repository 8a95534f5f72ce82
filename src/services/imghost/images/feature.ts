import type { Feature } from '../../../http/feature.js';
import { createTaskQueue } from '../../../lib/task-queue.js';
import type { ImghostDeps, ImghostLocals } from '../context.js';
import { threadBudget } from '../thread-budget.js';
import { configureSharp, MAX_WAITING_DECODES } from './imaging.js';
import { conversionStats, createPreviews } from './previews.js';
import { imageNotFound, serveImage } from './serve.js';
import type { ObjectStorage } from '../storage/object-storage.js';
import { openBucketImageStore } from './bucket-store.js';
import { openImageStore } from './store.js';
import { uploadImage, uploadWouldAccept } from './upload.js';

/** Upload, originals and on-demand WebP previews (storage layout: store.ts on disk, bucket-store.ts in a bucket). */
export async function imagesFeature(deps: ImghostDeps, bucket: ObjectStorage | null): Promise<Feature<ImghostLocals>> {
  configureSharp();
  const log = deps.log.child({ feature: 'images' });
  const budget = threadBudget();
  if (budget.decodeConcurrency < budget.wantedDecodes) {
    // Info, not a warning: `npm start` and the deployment files size the pool
    // (see thread-budget.ts); only a pool set smaller by hand gets here.
    log.info('libuv thread pool too small for one decode per core: decodes capped, set UV_THREADPOOL_SIZE', {
      UV_THREADPOOL_SIZE: budget.poolSize,
      decodes: budget.decodeConcurrency,
      recommended: budget.recommendedPoolSize,
    });
  }
  const store = bucket ? await openBucketImageStore(deps.config.imagesDir, bucket, log) : await openImageStore(deps.config.imagesDir, log);
  // One line for uploads' checks and previews' conversions: both decode images.
  const limiter = createTaskQueue({ concurrency: budget.decodeConcurrency, maxWaiting: MAX_WAITING_DECODES });
  const previews = createPreviews(store, limiter, log);
  const upload = {
    store,
    limiter,
    maxFileBytes: deps.config.imghostMaxBytes,
    token: deps.config.imghostUploadToken,
    now: deps.now,
  };

  return {
    routes: [
      { method: 'POST', path: '/api/upload', handler: uploadImage(upload) },
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
    checkContinue: uploadWouldAccept(upload),
    metrics: () => [
      { name: 'imghost_decode_queue_running', help: 'Image decodes and conversions running now', type: 'gauge', value: limiter.running },
      { name: 'imghost_decode_queue_waiting', help: 'Image decodes and conversions waiting for a slot', type: 'gauge', value: limiter.waiting },
      { name: 'imghost_webp_conversions_total', help: 'WebP previews this process started converting', type: 'counter', value: conversionStats.started },
      { name: 'imghost_webp_conversion_failures_total', help: 'WebP conversions that failed', type: 'counter', value: conversionStats.failed },
      ...(bucket
        ? [
            { name: 'imghost_storage_cache_bytes', help: 'Bytes of bucket objects kept in the local cache', type: 'gauge' as const, value: bucket.cache.bytes },
            { name: 'imghost_storage_cache_objects', help: 'Bucket objects kept in the local cache', type: 'gauge' as const, value: bucket.cache.entries },
          ]
        : []),
    ],
    close: async () => {
      await previews.settle();
      await store.close();
    },
  };
}
