import { gunzipSync, gzipSync, type ZlibOptions } from 'node:zlib';
import type { HeaderList } from './answer-head.js';
import type { Coding } from './content-encoding.js';
import { compressFast } from './content-encoding.js';
import type { PreparedAnswer } from './prepared-answer.js';
import { exactBuffer } from '../lib/exact-buffer.js';

// A prepared answer kept for a long time and sent rarely (store/outage-copies.ts:
// what a process serves while PostgreSQL is away) is kept in its smallest useful
// form: the gzip bytes alone, a tenth to a twentieth of a JSON list, instead of
// the body and the compressed forms made beside it. Every launcher and browser
// takes gzip, so it is sent as it is kept; a client that takes no compression at
// all gets it inflated, once per request, which only happens during an outage.

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
