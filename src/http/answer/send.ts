import type { OutgoingHttpHeader, OutgoingHttpHeaders } from 'node:http';
import { isHeaderList, writeBodyHead, writeEmptyHead, type HeaderList } from './head.js';
import { compressFast, preferredCoding } from './coding.js';
import type { Context } from '../context.js';

// An answer made for this request, whose body is known before its head is written
// (a JSON object, a text, an error, a redirect, a head alone). An answer made once
// and sent many times is a prepared one (prepared.ts); one whose body is read as it
// is sent, a streamed one (streamed.ts). All three write their head whole with one
// writeHead (head.ts says why), and take extra headers either as an object or,
// prepared once, as a frozen HeaderList (written in one step).

export type ExtraHeaders = OutgoingHttpHeaders | HeaderList;

export function sendBody(ctx: Context<any>, status: number, body: string | Buffer, contentType: string, headers?: ExtraHeaders): void {
  const res = ctx.res;
  if (res.headersSent) return;
  const buffer = typeof body === 'string' ? Buffer.from(body) : body;
  // Node drops the body of a HEAD answer by itself; Content-Length stays truthful.
  // A list prepared once (frozen) is written as it is, in one step (head.ts).
  if (headers === undefined || (isHeaderList(headers) && Object.isFrozen(headers))) {
    writeBodyHead(res, status, headers ?? NO_HEADERS, contentType, buffer.length).end(buffer);
    return;
  }
  const head = headerList(headers);
  head.push('Content-Type', contentType, 'Content-Length', buffer.length);
  res.writeHead(status, head).end(buffer);
}

/**
 * JSON answers over this size are compressed when the client accepts it (a page of
 * plugins is tens of KB and shrinks about fivefold). Below it, nothing is done
 * beyond one length check: small answers are not worth a header parse.
 */
export const JSON_COMPRESS_MIN_BYTES = 8 * 1024;

export function sendJson(ctx: Context<any>, status: number, value: unknown, headers?: ExtraHeaders): void {
  sendJsonBytes(ctx, status, Buffer.from(JSON.stringify(value)), headers);
}

/**
 * JSON already serialized (a ratings page also keeps its bytes for an outage),
 * compressed when large and accepted, each time: a prepared answer (prepared.ts)
 * keeps what it made instead.
 */
export function sendJsonBytes(ctx: Context<any>, status: number, body: Buffer, headers?: ExtraHeaders): void {
  if (body.length >= JSON_COMPRESS_MIN_BYTES) {
    const coding = preferredCoding(ctx.req.headers['accept-encoding']);
    if (coding !== undefined) {
      const head = headerList(headers);
      head.push('Content-Encoding', coding, 'Vary', 'Accept-Encoding');
      sendBody(ctx, status, compressFast(body, coding), 'application/json; charset=utf-8', head);
      return;
    }
  }
  sendBody(ctx, status, body, 'application/json; charset=utf-8', headers);
}

export function sendText(ctx: Context<any>, status: number, text: string, headers?: ExtraHeaders): void {
  sendBody(ctx, status, text, 'text/plain; charset=utf-8', headers);
}

/** The site's success envelope: fields sit at the top level beside `success`. */
export function sendOk(ctx: Context<any>, fields: Record<string, unknown> = {}, status = 200): void {
  sendJson(ctx, status, { success: true, ...fields });
}

/**
 * A redirect to `location`, `no-store` unless `cacheControl` says otherwise (the
 * image host's redirects to its bucket may be kept).
 */
export function redirect(ctx: Context<any>, location: string, status = 302, headers?: ExtraHeaders, cacheControl = 'no-store'): void {
  const res = ctx.res;
  if (res.headersSent) return;
  const head = headerList(headers);
  head.push('Location', location, 'Cache-Control', cacheControl, 'Content-Length', 0);
  res.writeHead(status, head).end();
}

/** An answer without a body (204, 304): the head alone. */
export function sendNoContent(ctx: Context<any>, status = 204, headers?: ExtraHeaders): void {
  const res = ctx.res;
  if (res.headersSent) return;
  // A list prepared once (a prepared answer's 304) is written in one step (head.ts).
  if (headers === undefined || (isHeaderList(headers) && Object.isFrozen(headers))) {
    writeEmptyHead(res, status, headers ?? NO_HEADERS).end();
    return;
  }
  res.writeHead(status, headers as OutgoingHttpHeader[]).end();
}

const NO_HEADERS: HeaderList = Object.freeze([]);

/** A fresh list holding `headers`, for the caller to add its own to. */
function headerList(headers: ExtraHeaders | undefined): OutgoingHttpHeader[] {
  if (headers === undefined) return [];
  // Spread, not slice(): see head.ts (prepared lists are frozen).
  if (isHeaderList(headers)) return [...headers];
  const list: OutgoingHttpHeader[] = [];
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) list.push(name, value);
  }
  return list;
}
