import { createHash } from 'node:crypto';
import type { Context } from '../../core/context.js';
import { etagMatches } from '../../core/respond.js';

// Every launcher polls /api/info and /api/fastdownload, so these answers are built
// once per version of the file and a request only writes a ready Buffer: no
// JSON.stringify, no hashing, no header objects built per request.

/** Short, because launchers poll: a change must reach them within a minute. */
export const LAUNCHER_CACHE_CONTROL = 'public, max-age=60';
const JSON_TYPE = 'application/json; charset=utf-8';

export interface PreparedAnswer {
  readonly body: Buffer;
  /** Strong ETag: a hash of exactly these bytes. */
  readonly etag: string;
}

export function prepareJson(value: unknown): PreparedAnswer {
  const body = Buffer.from(JSON.stringify(value));
  return { body, etag: '"' + createHash('sha256').update(body).digest('base64url').slice(0, 27) + '"' };
}

/** 200 with the prepared bytes, or 304 when the client already holds them. HEAD: Node drops the body. */
export function sendPrepared(ctx: Context<any>, answer: PreparedAnswer): void {
  const res = ctx.res;
  res.setHeader('ETag', answer.etag);
  res.setHeader('Cache-Control', LAUNCHER_CACHE_CONTROL);
  const ifNoneMatch = ctx.req.headers['if-none-match'];
  // The exact header a launcher echoes back is checked first, before the list parse.
  if (ifNoneMatch !== undefined && (ifNoneMatch === answer.etag || etagMatches(ifNoneMatch, answer.etag))) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Content-Length', answer.body.length);
  res.end(answer.body);
}
