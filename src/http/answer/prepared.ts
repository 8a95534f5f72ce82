import { gunzipSync, gzipSync, type ZlibOptions } from 'node:zlib';
import type { HeaderList } from './head.js';
import { acceptedCoding, compressFast, preferredCoding, type Coding } from './coding.js';
import type { Context } from '../context.js';
import { answeredNotModified, strongEtag } from './etag.js';
import { exactBuffer, exactBytes } from '../../lib/exact-buffer.js';
import { sendBody, JSON_COMPRESS_MIN_BYTES } from './send.js';

// An answer made once and sent many times (the launcher's /api/info, the OpenAPI
// documents, the store's kept lists, the icons): its bytes, its ETag and its own
// headers made when it is prepared, each compressed form made the first time a
// client asks for it. A request then costs one If-None-Match check and one
// writeHead: no JSON.stringify, no hashing, no zlib, no header objects built per
// request. sendPrepared is the one way to send one.
//
// A prepared answer kept for long and sent rarely (the outage copies a site
// serves while PostgreSQL is away, src/services/site/outage-copies.ts) is packed
// (packAnswer) and unpacked to be sent; one served from a cache past its freshness says so
// (servedStale: Cache-Status).

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
   * (a packed answer, kept gzipped only: unpackAnswer); absent: any, made on demand.
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

// The head of a compressed answer, made once per answer and coding (a frozen list is
// written in one step, send.ts). By answer object: a stale copy of an answer
// (servedStale) has headers of its own, and so heads of its own.
const codedHeads = new WeakMap<PreparedAnswer, Partial<Record<Coding, HeaderList>>>();

function codedHead(answer: PreparedAnswer, coding: Coding): HeaderList {
  let heads = codedHeads.get(answer);
  if (heads === undefined) codedHeads.set(answer, (heads = {}));
  return (heads[coding] ??= Object.freeze([...answer.headers, 'Content-Encoding', coding]));
}

/**
 * The one way to send a prepared answer: 304 when the client holds it (its ETag);
 * else 200 with its bytes, in the coding the client prefers among those it can be
 * sent in when it is large enough to be worth compressing. HEAD: Node drops the body.
 */
export function sendPrepared(ctx: Context<any>, answer: PreparedAnswer): void {
  if (answer.etag !== undefined && answeredNotModified(ctx, answer.etag, answer.headers)) return;
  const accepted = ctx.req.headers['accept-encoding'];
  const coding = !answer.compressible ? undefined : answer.codings === undefined ? preferredCoding(accepted) : acceptedCoding(accepted, answer.codings);
  if (coding === undefined) sendBody(ctx, 200, answer.body, answer.contentType, answer.headers);
  else sendBody(ctx, 200, answer.compressed(coding), answer.contentType, codedHead(answer, coding));
}

// Packed: a prepared answer kept for a long time and sent rarely is kept in its
// smallest useful form: the gzip bytes alone, a tenth to a twentieth of a JSON list,
// instead of the body and the compressed forms made beside it. Every launcher and
// browser takes gzip, so it is sent as it is kept; a client that takes no
// compression at all gets it inflated, once per request, which only happens during
// an outage.

export interface PackedAnswer {
  /** The gzip bytes of the body when `gzipped`, else the body (too small to be worth compressing). */
  readonly bytes: Buffer;
  readonly gzipped: boolean;
  readonly contentType: string;
  readonly etag: string | undefined;
  /** The answer's own head (shared with the answer it was packed from, not copied). */
  readonly headers: HeaderList;
}

const GZIP_ONLY: readonly Coding[] = Object.freeze(['gzip']);

/**
 * Below this a body is kept as it is: gzip's own header and trailer (18 bytes) and
 * the deflate stream's start outweigh what it saves. Above it, even an answer too
 * small to be worth compressing on the wire (JSON_COMPRESS_MIN_BYTES: a plugin's
 * detail) is kept gzipped: kept for long, it is mostly text, a half to a third the size.
 */
export const PACK_MIN_BYTES = 256;

/**
 * gzip for packing: the default settings' state (a 32 KiB window, memLevel 8: about
 * 270 KiB of the C heap per call) is allocated and freed on every call, and copies are
 * packed one by one as caches push them out: churn that glibc's heap keeps (the C
 * heap of a soak's site grew from 22 to 44 MiB in four minutes). A 2 KiB window and
 * memLevel 3 need about 12 KiB, and JSON answers, whose records repeat their keys
 * within a few hundred bytes, compress as well (a list of 100 plugins: 20.4x against
 * 20.5x) and faster.
 */
const PACK_GZIP: ZlibOptions = { level: 6, windowBits: 11, memLevel: 3 };

/** `answer` kept small: its body gzipped (in memory of its own, lib/exact-buffer.ts), or its body when tiny. */
export function packAnswer(answer: PreparedAnswer): PackedAnswer {
  const { contentType, etag, headers } = answer;
  if (answer.body.length < PACK_MIN_BYTES) return { bytes: answer.body, gzipped: false, contentType, etag, headers };
  const bytes = exactBuffer(gzipSync(answer.body, PACK_GZIP));
  // An answer too small to compress on the wire is sent in gzip or not as the client asks from now on: the head says so.
  return { bytes, gzipped: true, contentType, etag, headers: answer.compressible ? headers : Object.freeze([...headers, 'Vary', 'Accept-Encoding']) };
}

/** A packed answer ready to send with `headers` as its head: in gzip as kept, or inflated for a client without it. */
export function unpackAnswer(packed: PackedAnswer, headers: HeaderList = packed.headers): PreparedAnswer {
  if (!packed.gzipped) {
    const body = packed.bytes;
    return { body, contentType: packed.contentType, etag: packed.etag, headers, bytes: body.length, compressible: false, compressed: () => body };
  }
  const inflate = () => gunzipSync(packed.bytes);
  return {
    // Read only to answer a client that takes no gzip (sendPrepared reads it once).
    get body() {
      return inflate();
    },
    contentType: packed.contentType,
    etag: packed.etag,
    headers,
    bytes: packed.bytes.length,
    compressible: true,
    codings: GZIP_ONLY,
    compressed: (coding) => (coding === 'gzip' ? packed.bytes : compressFast(inflate(), coding)),
  };
}

/**
 * `answer` (or a packed one) as a cache serves it past its freshness because its
 * origin cannot be reached: marked in Cache-Status (RFC 9211) as a `hit` (2.1:
 * served from the cache, not forwarded) with a negative `ttl`, the seconds since it
 * could last be revalidated (section 3: "a stale hit just has negative
 * freshness"), at least 1, and a `detail` token saying why. Made per request, on the
 * outage path only.
 */
export function servedStale(answer: PreparedAnswer | PackedAnswer, secondsStale: number, detail: string): PreparedAnswer {
  const status = `${CACHE_NAME}; hit; ttl=-${Math.max(1, Math.ceil(secondsStale))}; detail=${detail}`;
  const headers = Object.freeze([...answer.headers, 'Cache-Status', status]);
  return isPacked(answer) ? unpackAnswer(answer, headers) : { ...answer, headers };
}

/** The cache's name in Cache-Status: the name the site gives PostgreSQL too (application_name). */
const CACHE_NAME = 'launcher-web';

function isPacked(answer: PreparedAnswer | PackedAnswer): answer is PackedAnswer {
  return 'gzipped' in answer;
}
