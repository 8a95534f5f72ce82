import { createReadStream, type ReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { HttpError } from '../../http/errors.js';
import { answeredNotModified } from '../../http/prepared-answer.js';
import type { ImghostContext } from '../context.js';
import type { Previews } from './previews.js';
import type { ImageStore, StoredFile } from './store.js';

/** Content-addressed files never change, so caches may keep them for good (RFC 8246). */
export const IMAGE_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** Digits of a millisecond timestamp, with room to spare; longer is not one of ours. */
const TIMESTAMP = /^\d{1,16}$/;
const FILE_NAME = /^([0-9a-f]{32})(\.webp)?$/;
/** Read-ahead per response; 64 KiB matches the socket's own buffering. */
const READ_CHUNK_BYTES = 64 * 1024;

export const imageNotFound = () => new HttpError(404, 'NOT_FOUND', 'Image not found', { plain: true });

/** GET/HEAD /img/:timestamp/:file, where file is `<md5>` or `<md5>.webp`. */
export function serveImage(store: ImageStore, previews: Previews) {
  return async (ctx: ImghostContext): Promise<void> => {
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
    await sendStoredFile(ctx, store, file);
  };
}

async function sendStoredFile(ctx: ImghostContext, store: ImageStore, file: StoredFile): Promise<void> {
  const cacheHeaders = ['ETag', file.etag, 'Cache-Control', IMAGE_CACHE_CONTROL];
  if (answeredNotModified(ctx, file.etag, cacheHeaders)) return;
  const headers = [...cacheHeaders, 'Content-Type', file.mime, 'Content-Length', file.size];
  if (ctx.method === 'HEAD') {
    ctx.res.writeHead(200, headers).end();
    return;
  }
  const stream = await openStream(file.path);
  if (!stream) {
    store.forget(file);
    throw imageNotFound();
  }
  ctx.res.writeHead(200, headers);
  try {
    await pipeline(stream, ctx.res);
  } catch (error) {
    // pipeline has destroyed both sides: the client sees a cut connection, never a
    // short body that looks whole. A client going away is not worth a log line.
    if (!isClientGone(error)) ctx.log.warn('image stream failed', { err: error });
  }
}

/** Opens before any header is sent, so a file deleted by hand is still a clean 404. */
function openStream(path: string): Promise<ReadStream | null> {
  return new Promise((resolve, reject) => {
    const stream = createReadStream(path, { highWaterMark: READ_CHUNK_BYTES });
    const onError = (error: NodeJS.ErrnoException) => {
      stream.off('open', onOpen);
      if (error.code === 'ENOENT') resolve(null);
      else reject(error);
    };
    const onOpen = () => {
      stream.off('error', onError);
      // Until pipeline() takes over, an error must not be an uncaught 'error' event;
      // pipeline still sees it (the stream is then errored) and rejects.
      stream.on('error', ignore);
      resolve(stream);
    };
    stream.once('error', onError);
    stream.once('open', onOpen);
  });
}

const ignore = () => {};

function isClientGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET' || code === 'EPIPE';
}
