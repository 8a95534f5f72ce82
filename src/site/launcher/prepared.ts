import type { Context } from '../../http/context.js';
import type { HeaderList } from '../../http/answer-head.js';
import { etagMatches, sendBody, sendNoContent } from '../../http/respond.js';
import { strongEtag } from '../../http/etag.js';

// Every launcher polls /api/info and /api/fastdownload, so these answers are built
// once per version of the file and a request only writes a ready Buffer and a ready
// header list: no JSON.stringify, no hashing, no header objects built per request.

/** Short, because launchers poll: a change must reach them within a minute. */
export const LAUNCHER_CACHE_CONTROL = 'public, max-age=60';
const JSON_TYPE = 'application/json; charset=utf-8';

export interface PreparedAnswer {
  readonly body: Buffer;
  /** Strong ETag: a hash of exactly these bytes. */
  readonly etag: string;
  /** ETag and Cache-Control, as a ready list: all of a 304's own headers. */
  readonly headers: HeaderList;
}

export function prepareJson(value: unknown): PreparedAnswer {
  const body = Buffer.from(JSON.stringify(value));
  const etag = strongEtag(body);
  return { body, etag, headers: Object.freeze(['ETag', etag, 'Cache-Control', LAUNCHER_CACHE_CONTROL]) };
}

/** 200 with the prepared bytes, or 304 when the client already holds them. HEAD: Node drops the body. */
export function sendPrepared(ctx: Context<any>, answer: PreparedAnswer): void {
  const ifNoneMatch = ctx.req.headers['if-none-match'];
  // The exact header a launcher echoes back is checked first, before the list parse.
  if (ifNoneMatch !== undefined && (ifNoneMatch === answer.etag || etagMatches(ifNoneMatch, answer.etag))) {
    sendNoContent(ctx, 304, answer.headers);
    return;
  }
  sendBody(ctx, 200, answer.body, JSON_TYPE, answer.headers);
}
