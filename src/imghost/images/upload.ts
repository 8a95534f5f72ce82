import { rm } from 'node:fs/promises';
import { HttpError, payloadTooLarge } from '../../core/errors.js';
import { refuseRestOfBody } from '../../core/refuse-body.js';
import { sendJson } from '../../core/respond.js';
import type { ImghostContext } from '../context.js';
import { answerFilename } from './formats.js';
import { checkImage } from './imaging.js';
import type { TaskQueue as Limiter } from '../../core/task-queue.js';
import { maxUploadBody, receiveImage, type ReceivedImage } from './receive.js';
import type { ImageStore } from './store.js';
import { createTokenCheck } from './upload-token.js';

export interface UploadOptions {
  store: ImageStore;
  limiter: Limiter;
  maxFileBytes: number;
  token: string | undefined;
}

function isMultipartForm(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.split(';')[0]!.trim().toLowerCase() === 'multipart/form-data';
}

const noFile = () => new HttpError(400, 'BAD_REQUEST', 'No file uploaded', { field: 'image' });
const busy = () => new HttpError(503, 'UNAVAILABLE', 'Server busy, try again shortly', { headers: { 'Retry-After': '5' } });

/**
 * POST /api/upload. Order matters: token, declared size, then the body streams to
 * a temp file (hashed and sniffed on the way), then sharp checks the file, then it
 * is renamed into place. Whatever fails, the temp file is removed.
 */
export function uploadImage(options: UploadOptions) {
  const checkToken = createTokenCheck(options.token);
  const maxBody = maxUploadBody(options.maxFileBytes);

  async function readBody(ctx: ImghostContext): Promise<ReceivedImage | null> {
    const req = ctx.req;
    try {
      // Before any body byte is read: an unauthorised or oversized upload costs nothing.
      checkToken(req.headers.authorization);
      const declared = req.headers['content-length'];
      // Content-Length is trusted only without Transfer-Encoding (RFC 9112 6.3).
      if (declared !== undefined && req.headers['transfer-encoding'] === undefined && Number(declared) > maxBody) {
        throw payloadTooLarge(`File is larger than ${options.maxFileBytes} bytes`);
      }
      // A request that is not a form at all (no body, JSON...) sent no file: the
      // answer the old service gave, and what its clients check for.
      if (!isMultipartForm(req.headers['content-type'])) return null;
      return await receiveImage(req, options.store, options.maxFileBytes);
    } catch (error) {
      // Answering before the body is read: discard the rest for a short grace
      // period so the client sees our answer, then cut it off.
      if (!req.complete) refuseRestOfBody(ctx);
      throw error;
    }
  }

  async function keep(image: ReceivedImage): Promise<void> {
    try {
      await options.limiter.run(() => checkImage(image.temp, image.format), busy);
      await options.store.commitOriginal(image.temp, image.md5, image.format, image.size);
    } catch (error) {
      await rm(image.temp, { force: true });
      throw error;
    }
  }

  return async (ctx: ImghostContext): Promise<void> => {
    const image = await readBody(ctx);
    if (image === null) throw noFile();
    await keep(image);
    // The timestamp only makes each answer's URL distinct, as the old service's
    // did; the md5 alone selects the file.
    const timestamp = Date.now();
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
  };
}
