import { parseRange } from '../../../http/byte-range.js';
import { HttpError } from '../../../http/errors.js';
import { answeredNotModified, redirect, sendStreamed } from '../../../http/answer/index.js';
import type { ImghostContext } from '../context.js';
import { bucketFailureToHttp } from '../storage/object-storage.js';
import type { Previews } from './previews.js';
import type { ImageStore, StoredFile } from './store.js';

/** Content-addressed files never change, so caches may keep them for good (RFC 8246). */
export const IMAGE_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** Digits of a millisecond timestamp, with room to spare; longer is not one of ours. */
const TIMESTAMP = /^\d{1,16}$/;
const FILE_NAME = /^([0-9a-f]{32})(\.webp)?$/;
/** A redirect to STORAGE_PUBLIC_URL may be kept a day: the object under it never changes, the setting might. */
const REDIRECT_CACHE_CONTROL = 'public, max-age=86400';

export const imageNotFound = () => new HttpError(404, 'NOT_FOUND', 'Image not found', { plain: true });

/** GET/HEAD /img/:timestamp/:file, where file is `<md5>` or `<md5>.webp`. */
export function serveImage(store: ImageStore, previews: Previews) {
  const serve = async (ctx: ImghostContext): Promise<void> => {
    // Params arrive decoded, so "..%2F.." is "../.." here and fails these patterns:
    // nothing a client sends reaches a path except a checked md5.
    const name = FILE_NAME.exec(ctx.params.file ?? '');
    if (!TIMESTAMP.test(ctx.params.timestamp ?? '') || !name) throw imageNotFound();
    const md5 = name[1]!;
    const original = await store.findOriginal(md5);
    if (!original) throw imageNotFound();
    const file = name[2] ? await previews.get(md5, original) : original;
    if (!file) {
      store.forget(original);
      throw imageNotFound();
    }
    const location = store.redirectUrl(file);
    if (location !== undefined) return redirect(ctx, location, 302, undefined, REDIRECT_CACHE_CONTROL);
    await sendStoredFile(ctx, store, file);
  };
  return async (ctx: ImghostContext): Promise<void> => {
    try {
      await serve(ctx);
    } catch (error) {
      // A bucket that does not answer: 503 UNAVAILABLE with Retry-After, in the JSON
      // envelope as every other 503 of the host (only "Image not found" is the
      // original image host's plain text).
      throw bucketFailureToHttp(error, false);
    }
  };
}

/** The whole file or one byte range of it (If-Range with another tag asks for the whole). */
async function sendStoredFile(ctx: ImghostContext, store: ImageStore, file: StoredFile): Promise<void> {
  const cacheHeaders = ['ETag', file.etag, 'Cache-Control', IMAGE_CACHE_CONTROL, 'Accept-Ranges', 'bytes'];
  if (answeredNotModified(ctx, file.etag, cacheHeaders)) return;
  const ifRange = ctx.req.headers['if-range'];
  const range = ifRange === undefined || ifRange === file.etag ? parseRange(ctx.req.headers.range, file.size) : null;
  if (range === 'unsatisfiable') {
    throw new HttpError(416, 'RANGE_NOT_SATISFIABLE', 'Range not satisfiable', {
      headers: { 'Content-Range': `bytes */${file.size}` },
      plain: !file.key.endsWith('.webp'),
    });
  }
  const headers: Array<string | number> = [...cacheHeaders, 'Content-Type', file.mime];
  if (range) headers.push('Content-Length', range.end - range.start + 1, 'Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
  else headers.push('Content-Length', file.size);
  const status = range ? 206 : 200;
  if (ctx.method === 'HEAD') return sendStreamed(ctx, status, headers);
  const stream = await store.open(file, range ?? undefined);
  if (!stream) {
    store.forget(file);
    throw imageNotFound();
  }
  // A stream that fails midway cuts the connection: the client never sees a short body that looks whole.
  await sendStreamed(ctx, status, headers, stream, STREAM_FAILED);
}

const STREAM_FAILED = 'image stream failed';
