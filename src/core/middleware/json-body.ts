import type { Middleware } from '../context.js';
import { HttpError } from '../errors.js';
import { refuseRestOfBody } from '../refuse-body.js';

export const JSON_BODY_LIMIT = 1024 * 1024;

/**
 * Reads a JSON body into ctx.body. The size limit is enforced while reading: a
 * declared Content-Length over it is refused before a byte is read (trusted only
 * without Transfer-Encoding, RFC 9112 6.3), and a streamed body is cut off as soon
 * as it passes the limit.
 */
export function jsonBody(options: { limit?: number; optional?: boolean } = {}): Middleware<any> {
  const limit = options.limit ?? JSON_BODY_LIMIT;
  return async (ctx, next) => {
    const req = ctx.req;
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (!hasBody && options.optional) {
      ctx.body = {};
      return next();
    }
    if (!isJsonType(req.headers['content-type'])) {
      throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
    }
    ctx.body = await readJson(ctx, limit);
    return next();
  };
}

export function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

async function readJson(ctx: Parameters<Middleware<any>>[0], limit: number): Promise<unknown> {
  const req = ctx.req;
  const declared = req.headers['content-length'];
  if (declared !== undefined && req.headers['transfer-encoding'] === undefined && Number(declared) > limit) {
    refuseRestOfBody(ctx);
    throw tooLarge(limit);
  }
  const { chunks, size } = await readLimited(ctx, limit);
  const text = Buffer.concat(chunks, size).toString('utf8');
  if (text.trim() === '') throw new HttpError(400, 'BAD_REQUEST', 'Request body is empty; expected JSON');
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'BAD_REQUEST', 'Request body is not valid JSON');
  }
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${limit} bytes`);
}

/**
 * Collects the body up to `limit` bytes. Not `for await`: leaving that loop early
 * destroys the request, and with it the socket our 413 is about to be written to.
 */
function readLimited(ctx: Parameters<Middleware<any>>[0], limit: number): Promise<{ chunks: Buffer[]; size: number }> {
  const req = ctx.req;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        refuseRestOfBody(ctx);
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve({ chunks, size });
    };
    const onError = () => {
      cleanup();
      reject(new HttpError(400, 'BAD_REQUEST', 'The request body could not be read'));
    };
    // 'close' before 'end' means the client went away mid-body.
    const onClose = onError;
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
