import type { HeaderList } from './answer-head.js';
import { acceptedCoding, compressFast, preferredCoding, type Coding } from './content-encoding.js';
import type { Context } from './context.js';
import { strongEtag } from './etag.js';
import { exactBuffer, exactBytes } from '../lib/exact-buffer.js';
import { etagMatches, sendBody, sendNoContent, type ExtraHeaders, JSON_COMPRESS_MIN_BYTES } from './respond.js';

// An answer made once and sent many times (the launcher's /api/info, the OpenAPI
// documents, the store's kept lists): its bytes, its ETag and its own headers
// made when it is prepared, each compressed form made the first time a client
// asks for it. A request then costs one If-None-Match check and one writeHead:
// no JSON.stringify, no hashing, no zlib, no header objects built per request.

export const JSON_TYPE = 'application/json; charset=utf-8';

export interface PreparedAnswer {
  readonly body: Buffer;
  readonly contentType: string;
  /** Strong ETag: a hash of exactly these bytes; undefined for an answer no one may revalidate (no-store). */
  readonly etag: string | undefined;
  /** ETag, Cache-Control and the headers given, as a ready list: all of a 304's own headers. */
  readonly headers: HeaderList;
  /** What keeping it costs: the body and room for its two compressed forms (about a fifth each). */
  readonly bytes: number;
  /** True when the body is large enough to be worth compressing for a client that takes it. */
  readonly compressible: boolean;
  /**
   * The codings it can be sent in, preferred first, when not every one we make
   * (an answer kept gzipped only, http/packed-answer.ts); absent: any, made on demand.
   */
  readonly codings?: readonly Coding[];
  compressed(coding: Coding): Buffer;
}

export interface PrepareOptions {
  contentType?: string;
  /** A ready ETag (made from what the body is made of); false for answers sent with no-store (no hash is made). Default: a hash of the body. */
  etag?: string | false;
  cacheControl?: string;
  /** Other headers of every answer (200 and 304), e.g. CORS. */
  headers?: Record<string, string>;
  /** Bodies from this size are compressed when the client accepts it; default JSON_COMPRESS_MIN_BYTES. */
  compressMinBytes?: number;
}

export function prepareAnswer(content: Buffer | string, options: PrepareOptions = {}): PreparedAnswer {
  // Kept for as long as the answer is: in memory of its own (lib/exact-buffer.ts).
  const body = typeof content === 'string' ? exactBytes(content) : exactBuffer(content);
  const etag = options.etag === false ? undefined : (options.etag ?? strongEtag(body));
  const compressible = body.length >= (options.compressMinBytes ?? JSON_COMPRESS_MIN_BYTES);
  const headers: string[] = [];
  if (etag !== undefined) headers.push('ETag', etag);
  if (options.cacheControl !== undefined) headers.push('Cache-Control', options.cacheControl);
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.push(name, value);
  // Whether the bytes differ with Accept-Encoding is known now: say so on every answer.
  if (compressible) headers.push('Vary', 'Accept-Encoding');
  const made: Partial<Record<Coding, Buffer>> = {};
  return {
    body,
    contentType: options.contentType ?? JSON_TYPE,
    etag,
    headers: Object.freeze(headers),
    bytes: Math.ceil(body.length * 1.5),
    compressible,
    compressed: (coding) => (made[coding] ??= exactBuffer(compressFast(body, coding))),
  };
}

export function prepareJson(value: unknown, options: PrepareOptions = {}): PreparedAnswer {
  return prepareAnswer(JSON.stringify(value), options);
}

/**
 * The one If-None-Match check (RFC 9110 13.1.2, weak comparison): true when the
 * client already holds `etag`, after answering 304 with `headers`. The exact header
 * a client echoes back is compared first, before the list is parsed.
 */
export function answeredNotModified(ctx: Context<any>, etag: string, headers: ExtraHeaders): boolean {
  const ifNoneMatch = ctx.req.headers['if-none-match'];
  if (ifNoneMatch === undefined || (ifNoneMatch !== etag && !etagMatches(ifNoneMatch, etag))) return false;
  sendNoContent(ctx, 304, headers);
  return true;
}

// The head of a compressed answer, made once per answer and coding (a frozen list is
// written in one step, respond.ts). By answer object: a stale copy of an answer
// (store/kept-answers.ts) has headers of its own, and so heads of its own.
const codedHeads = new WeakMap<PreparedAnswer, Partial<Record<Coding, HeaderList>>>();

function codedHead(answer: PreparedAnswer, coding: Coding): HeaderList {
  let heads = codedHeads.get(answer);
  if (heads === undefined) codedHeads.set(answer, (heads = {}));
  return (heads[coding] ??= Object.freeze([...answer.headers, 'Content-Encoding', coding]));
}

/**
 * 304 when the client holds the answer; else `status` (200) with its bytes,
 * compressed when it is large and the client takes it. `extra`: headers of this
 * request's answer only, after the prepared ones. HEAD: Node drops the body.
 */
export function sendPrepared(ctx: Context<any>, answer: PreparedAnswer, extra?: Record<string, string>, status = 200): void {
  if (answer.etag !== undefined && status === 200 && answeredNotModified(ctx, answer.etag, answer.headers)) return;
  const accepted = ctx.req.headers['accept-encoding'];
  const coding = !answer.compressible ? undefined : answer.codings === undefined ? preferredCoding(accepted) : acceptedCoding(accepted, answer.codings);
  if (extra === undefined) {
    if (coding === undefined) sendBody(ctx, status, answer.body, answer.contentType, answer.headers);
    else sendBody(ctx, status, answer.compressed(coding), answer.contentType, codedHead(answer, coding));
    return;
  }
  const head: Array<string | number | string[]> = [...answer.headers];
  if (extra !== undefined) for (const name in extra) head.push(name, extra[name]!);
  if (coding !== undefined) head.push('Content-Encoding', coding);
  sendBody(ctx, status, coding === undefined ? answer.body : answer.compressed(coding), answer.contentType, head);
}
