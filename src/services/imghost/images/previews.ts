import { stat } from 'node:fs/promises';
import { createSingleFlight } from '../../../lib/single-flight.js';
import { HttpError } from '../../../http/errors.js';
import type { Logger } from '../../../lib/log.js';
import type { TaskQueue as Limiter } from '../../../lib/task-queue.js';
import { BucketUnavailable } from '../storage/bucket-unavailable.js';
import { insufficientStorage, isDiskFull } from '../storage/disk-errors.js';
import { convertToWebp } from './imaging.js';
import type { ImageStore, StoredFile } from './store.js';

/**
 * Conversions run by this process, for tests and the benchmark: `started` counts
 * every sharp run, so "20 concurrent first requests convert once" is checkable.
 */
export const conversionStats = { started: 0, failed: 0 };

const conversionFailed = (cause: unknown) =>
  new HttpError(500, 'INTERNAL', 'Error converting image', { plain: true, cause });

// A preview's 503s are the JSON error envelope with Retry-After, as documented
// (openapi: getImagePreview); its 404 and 500 stay text, as /img's are.

/** The local copy went away under the conversion: a retry fetches it again. */
const sourceGone = (cause: unknown) =>
  new HttpError(503, 'UNAVAILABLE', 'Image briefly unavailable, try again shortly', { cause, headers: { 'Retry-After': '1' } });

const busy = () =>
  new HttpError(503, 'UNAVAILABLE', 'Server busy, try again shortly', { headers: { 'Retry-After': '5' } });


/**
 * WebP previews, made on first request and kept beside the original (on disk, or
 * in the bucket, where the first host to miss one makes it and the others find it). Concurrent first requests
 * for one image share one conversion (single flight); conversions of different
 * images go through the decode limiter. A failure leaves nothing on disk or in
 * memory, so the next request tries again.
 */
export function createPreviews(store: ImageStore, limiter: Limiter, log: Logger) {
  const singleFlight = createSingleFlight<StoredFile | null>();

  async function convert(md5: string, original: StoredFile): Promise<StoredFile | null> {
    // A request that missed the cache just before another's conversion finished
    // must not convert a second time: look on disk again inside the flight.
    const done = await store.findPreview(md5);
    if (done) return done;
    // With a bucket, the original is fetched into the local cache first (outside the
    // decode limiter: waiting on the network must not hold a decode slot).
    const source = await store.localCopy(original);
    if (!source) return null;
    try {
      return await limiter.run(async () => {
        const temp = store.temps.create('webp');
        conversionStats.started++;
        try {
          await convertToWebp(source.path, temp);
          return await store.commitPreview(temp, md5);
        } catch (error) {
          conversionStats.failed++;
          await store.temps.discard(temp).catch((rmError: unknown) => log.warn('temp file left behind', { err: rmError }));
          if (isDiskFull(error)) throw insufficientStorage(true, error);
          if (error instanceof BucketUnavailable) throw error;
          // The original was deleted by hand while its lookup was remembered: the
          // image is gone, which is not a conversion failure.
          if (!(await store.stillThere(original))) return null;
          if (!(await stat(source.path).then(() => true, () => false))) throw sourceGone(error);
          throw conversionFailed(error);
        }
      }, busy);
    } finally {
      await source.release();
    }
  }

  return {
    /** The preview of `original`, converting it on first request; null when the original is gone. */
    async get(md5: string, original: StoredFile): Promise<StoredFile | null> {
      const ready = await store.findPreview(md5);
      if (!ready) return singleFlight(md5, () => convert(md5, original));
      // A preview is served only beside its original: an image whose original was
      // deleted by hand is gone in every form, even where its lookups are remembered.
      // One stat, on preview requests only.
      if (await store.stillThere(original)) return ready;
      store.forget(ready);
      return null;
    },
    /** Waits for conversions in flight, so shutdown does not cut one in half. */
    async settle(): Promise<void> {
      await singleFlight.settle();
    },
  };
}

export type Previews = ReturnType<typeof createPreviews>;
