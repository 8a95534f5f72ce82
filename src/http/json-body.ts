import { isUtf8 } from 'node:buffer';
import type { Middleware } from './context.js';
import { badRequest, HttpError } from './errors.js';
import { isObject } from '../lib/json-object.js';
import { declaresMoreThan } from './multipart/form-type.js';
import { readLimited } from '../lib/read-limited.js';
import { refuseRestOfBody } from './refuse-body.js';
import { refuseUnstorableJson } from './storable-text.js';

export const JSON_BODY_LIMIT = 1024 * 1024;

/**
 * Reads a JSON body into ctx.body. The size limit is enforced while reading: a
 * declared Content-Length over it is refused before a byte is read (trusted only
 * without Transfer-Encoding, RFC 9112 6.3), and a streamed body is cut off as soon
 * as it passes the limit. A string PostgreSQL cannot hold (NUL, an unpaired
 * surrogate) is refused here for every route (storable-text.ts).
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
    ctx.body = parseJsonBytes(await readJsonBytes(ctx, limit));
    return next();
  };
}

/**
 * As jsonBody, but leaves ctx.body the body's bytes, unparsed, for a route that
 * keeps answers under the bytes asked (the update check) and parses them only when
 * it has none: with parseJsonBytes, the same checks and errors as jsonBody.
 */
export function jsonBodyBytes(options: { limit?: number } = {}): Middleware<any> {
  const limit = options.limit ?? JSON_BODY_LIMIT;
  return async (ctx, next) => {
    if (!isJsonType(ctx.req.headers['content-type'])) {
      throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
    }
    ctx.body = await readJsonBytes(ctx, limit);
    return next();
  };
}

export function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  // What launchers and browsers send, compared whole before anything is split or lowered.
  if (contentType === 'application/json' || contentType === 'application/json; charset=utf-8') return true;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

async function readJsonBytes(ctx: Parameters<Middleware<any>>[0], limit: number): Promise<Buffer> {
  const req = ctx.req;
  if (declaresMoreThan(req, limit)) {
    refuseRestOfBody(ctx);
    throw tooLarge(limit);
  }
  const read = await readLimited(req, limit);
  if (!read.ok) {
    if (read.reason === 'cut') throw new HttpError(400, 'BAD_REQUEST', 'The request body could not be read');
    refuseRestOfBody(ctx);
    throw tooLarge(limit);
  }
  return read.bytes;
}

/** The JSON value of a body read by jsonBodyBytes: 400 when empty, not UTF-8, not JSON, or not storable. */
export function parseJsonBytes(bytes: Buffer): unknown {
  // toString would turn bytes that are not UTF-8 into U+FFFD, and they would be stored so.
  if (!isUtf8(bytes)) throw new HttpError(400, 'BAD_REQUEST', 'Request body is not valid UTF-8');
  const text = bytes.toString('utf8');
  if (text.trim() === '') throw new HttpError(400, 'BAD_REQUEST', 'Request body is empty; expected JSON');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'BAD_REQUEST', 'Request body is not valid JSON');
  }
  refuseUnstorableJson(text, value);
  return value;
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${limit} bytes`);
}

/** A request body that must be a JSON object: 400 BAD_REQUEST "Expected a JSON object <what>" otherwise. */
export function objectBody(body: unknown, what: string): Record<string, unknown> {
  if (!isObject(body)) throw badRequest(`Expected a JSON object ${what}`);
  return body;
}
