import type { IncomingMessage } from 'node:http';
import { HttpError, payloadTooLarge } from '../../../http/errors.js';
import { declaresMoreThan, isMultipartForm } from '../../../http/multipart/index.js';
import { refuseRestOfBody } from '../../../http/refuse-body.js';
import { sendJson } from '../../../http/answer/index.js';
import { wallClock, type Clock } from '../../../lib/clock.js';
import type { TaskQueue as Limiter } from '../../../lib/task-queue.js';
import { wouldAcceptUpload } from '../continue-check.js';
import type { ImghostContext } from '../context.js';
import { bucketFailureToHttp } from '../storage/object-storage.js';
import { insufficientStorage, isDiskFull } from '../storage/disk-errors.js';
import { answerFilename } from './formats.js';
import { checkImage } from './imaging.js';
import { maxUploadBody, receiveImage, type ReceivedImage } from './receive.js';
import type { ImageStore } from './store.js';
import { createTokenCheck } from './upload-token.js';

export interface UploadOptions {
  store: ImageStore;
  limiter: Limiter;
  maxFileBytes: number;
  token: string | undefined;
  /** The clock of the answers' timestamps; tests pass one they move. */
  now?: Clock;
}

export const UPLOAD_PATH = '/api/upload';

const noFile = () => new HttpError(400, 'BAD_REQUEST', 'No file uploaded', { field: 'image' });
const busy = () => new HttpError(503, 'UNAVAILABLE', 'Server busy, try again shortly', { headers: { 'Retry-After': '5' } });

/**
 * The checks made before any body byte is read (token, then declared size): an
 * unauthorised or oversized upload costs nothing. Throws the refusal.
 */
function uploadPrecheck(options: UploadOptions) {
  const checkToken = createTokenCheck(options.token);
  const maxBody = maxUploadBody(options.maxFileBytes);
  return (req: IncomingMessage): void => {
    checkToken(req.headers.authorization);
    if (declaresMoreThan(req, maxBody)) throw payloadTooLarge(`File is larger than ${options.maxFileBytes} bytes`);
  };
}

/** For `Expect: 100-continue`: see continue-check.ts. */
export function uploadWouldAccept(options: UploadOptions): (req: IncomingMessage) => boolean {
  return wouldAcceptUpload(UPLOAD_PATH, uploadPrecheck(options));
}

/**
 * POST /api/upload. Order matters: token, declared size, then the body streams to
 * a temp file (hashed and sniffed on the way), then sharp checks the file, then it
 * is renamed into place. Whatever fails, the temp file is removed.
 */
export function uploadImage(options: UploadOptions) {
  const precheck = uploadPrecheck(options);
  const now = options.now ?? wallClock;

  async function readBody(ctx: ImghostContext): Promise<ReceivedImage | null> {
    precheck(ctx.req);
    // A request that is not a form at all (no body, JSON...) sent no file: the
    // answer the old service gave, and what its clients check for.
    if (!isMultipartForm(ctx.req.headers['content-type'])) return null;
    return receiveImage(ctx.req, options.store, options.maxFileBytes);
  }

  async function keep(image: ReceivedImage): Promise<void> {
    try {
      await options.limiter.run(() => checkImage(image.temp, image.format), busy);
      await options.store.commitOriginal(image.temp, image.md5, image.format, image.size);
    } catch (error) {
      await options.store.temps.discard(image.temp);
      throw error;
    }
  }

  async function store(ctx: ImghostContext): Promise<void> {
    const image = await readBody(ctx);
    if (image === null) throw noFile();
    await keep(image);
    // The timestamp only makes each answer's URL distinct, as the old service's
    // did; the md5 alone selects the file.
    const timestamp = now();
    const md5 = image.md5;
    sendJson(ctx, 200, {
      success: true,
      message: 'Upload successful',
      data: {
        url: `/img/${timestamp}/${md5}`,
        webpUrl: `/img/${timestamp}/${md5}.webp`,
        timestamp,
        md5,
        filename: answerFilename(md5, image.clientName, image.format),
      },
    });
  }

  return async (ctx: ImghostContext): Promise<void> => {
    try {
      await store(ctx);
    } catch (error) {
      throw isDiskFull(error) ? insufficientStorage(false, error) : bucketFailureToHttp(error, false);
    } finally {
      // Whatever the answer, the rest of the body (an epilogue after the form, or
      // all of it when we refused early) must be read for the connection to carry
      // the next request: a bounded discard, cut off if the client keeps sending.
      refuseRestOfBody(ctx);
    }
  };
}
