import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Context } from './context.js';

// Every answer goes through these, so headers and encodings are set in one place.

export function sendBody(
  ctx: Context<any>,
  status: number,
  body: string | Buffer,
  contentType: string,
  headers: OutgoingHttpHeaders = {},
): void {
  const res = ctx.res;
  if (res.headersSent) return;
  const buffer = typeof body === 'string' ? Buffer.from(body) : body;
  res.statusCode = status;
  setHeaders(res, headers);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', buffer.length);
  // Node drops the body of a HEAD answer by itself; Content-Length stays truthful.
  res.end(buffer);
}

export function sendJson(ctx: Context<any>, status: number, value: unknown, headers?: OutgoingHttpHeaders): void {
  sendBody(ctx, status, JSON.stringify(value), 'application/json; charset=utf-8', headers);
}

export function sendText(ctx: Context<any>, status: number, text: string, headers?: OutgoingHttpHeaders): void {
  sendBody(ctx, status, text, 'text/plain; charset=utf-8', headers);
}

/** The site's success envelope: fields sit at the top level beside `success`. */
export function sendOk(ctx: Context<any>, fields: Record<string, unknown> = {}, status = 200): void {
  sendJson(ctx, status, { success: true, ...fields });
}

export function redirect(ctx: Context<any>, location: string, status = 302, headers: OutgoingHttpHeaders = {}): void {
  const res = ctx.res;
  if (res.headersSent) return;
  res.statusCode = status;
  setHeaders(res, headers);
  res.setHeader('Location', location);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', 0);
  res.end();
}

export function sendNoContent(ctx: Context<any>, status = 204, headers: OutgoingHttpHeaders = {}): void {
  const res = ctx.res;
  if (res.headersSent) return;
  res.statusCode = status;
  setHeaders(res, headers);
  res.end();
}

/**
 * Appends Set-Cookie rather than replacing it, so several middlewares can each set
 * their own cookie on one answer.
 */
export function appendHeader(res: ServerResponse, name: string, value: string): void {
  const current = res.getHeader(name);
  if (current === undefined) res.setHeader(name, [value]);
  else res.setHeader(name, [...(Array.isArray(current) ? current : [String(current)]), value]);
}

function setHeaders(res: ServerResponse, headers: OutgoingHttpHeaders): void {
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) res.setHeader(name, value);
  }
}

/** True when the request's If-None-Match names this ETag (weak comparison, RFC 9110 13.1.2). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === bare);
}
