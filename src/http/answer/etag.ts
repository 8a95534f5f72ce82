import { createHash } from 'node:crypto';
import type { Context } from '../context.js';
import { sendNoContent, type ExtraHeaders } from './send.js';

// Entity tags and the one conditional request we answer: If-None-Match (RFC 9110
// 13.1.2), for prepared answers, static files and streamed files alike.

/**
 * A strong ETag (RFC 9110 8.8.3) that changes whenever one of `parts` does: the
 * first 160 bits of their SHA-256 (parts kept apart by a NUL), base64url, quoted.
 * Made once per content, never per request.
 */
export function strongEtag(...parts: Array<string | Uint8Array>): string {
  const hash = createHash('sha256');
  parts.forEach((part, index) => {
    if (index > 0) hash.update('\u0000');
    hash.update(part);
  });
  return `"${hash.digest('base64url').slice(0, 27)}"`;
}

/**
 * The one If-None-Match check (weak comparison): true when the client already
 * holds `etag`, after answering 304 with `headers` (the 200's own, without its
 * body's). The exact header a client echoes back is compared first, before the
 * list is parsed.
 */
export function answeredNotModified(ctx: Context<any>, etag: string, headers: ExtraHeaders): boolean {
  const ifNoneMatch = ctx.req.headers['if-none-match'];
  if (ifNoneMatch === undefined || (ifNoneMatch !== etag && !etagMatches(ifNoneMatch, etag))) return false;
  sendNoContent(ctx, 304, headers);
  return true;
}

/** True when the request's If-None-Match names this ETag (weak comparison, RFC 9110 13.1.2). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === bare);
}
