// The multipart/form-data state machine (RFC 2046 §5.1.1, RFC 7578). It is
// synchronous and pull-driven: the driver pushes one chunk, then calls next() until
// it answers 'need-more', so it can stop in the middle of a chunk (for backpressure)
// without the scanner ever queueing events or copying content.
//
// Line endings: CRLF only. RFC 2046 and RFC 7578 require CRLF, and every client we
// know (browsers, curl, undici, Go, Python) sends it. Accepting bare LF would make
// "\n--boundary" inside binary content a delimiter for us but not for a strict
// parser in front of us, a parser differential; so a body with LF-only lines is
// refused with 400 at its first boundary line, and a bare CR or LF inside a header
// block is refused too.

import { badRequest, payloadTooLarge } from '../errors.js';
import { parsePartHeaders, type PartHeaders } from './part-headers.js';

const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
const SP = 0x20;
const HTAB = 0x09;

/** RFC 2046 transport-padding (whitespace after a boundary): legal, but a few bytes is plenty. */
const MAX_TRANSPORT_PADDING = 64;
/**
 * The preamble is discarded, never buffered, but without a bound a client could
 * keep us reading it forever. Real clients send none or one line; a long one means
 * the body does not use the declared boundary, so it is a malformed body (400),
 * not a size limit the client could fix by sending less.
 */
const MAX_PREAMBLE_BYTES = 16 * 1024;
const INITIAL_HEADER_BUFFER = 1024;
/**
 * Every delimiter starts with CRLF "--". Buffer.indexOf scans for a pattern this
 * short with memchr, about twice as fast as its Boyer-Moore for a whole delimiter
 * of a typical length, and in binary content the four bytes are rare. Text full of
 * "\r\n--" lines (or a hostile upload) would make the two-step search check
 * often, so after a few misses in one chunk we fall back to searching for the
 * whole delimiter, which keeps the worst case linear.
 */
const DELIMITER_PREFIX = Buffer.from('\r\n--', 'latin1');
const MAX_PREFIX_MISSES = 8;
const EMPTY: Buffer = Buffer.alloc(0);

/**
 * - 'headers': a part begins; `headers` holds its fields.
 * - 'data': `data` holds the next content bytes of the current part.
 * - 'part-end': the current part is complete.
 * - 'done': the close delimiter was seen; anything after it is epilogue.
 * - 'need-more': push() the next chunk.
 */
export type ScanEvent = 'headers' | 'data' | 'part-end' | 'done' | 'need-more';

type State =
  | 'preamble' // before the first delimiter; bytes are ignored
  | 'after-boundary' // just past "--boundary": "--" closes, otherwise padding and CRLF
  | 'close-dash' // seen one '-' of the closing "--"
  | 'padding' // transport-padding before the boundary line's CRLF
  | 'boundary-lf' // seen the CR ending a boundary line
  | 'headers' // inside a part's header block
  | 'body' // inside a part's content
  | 'done'; // past the close delimiter

export interface PartScanner {
  push(chunk: Buffer): void;
  next(): ScanEvent;
  /** After 'data': a view into the pushed chunk (not a copy), valid until the next push. */
  data: Buffer;
  /** After 'headers'. */
  headers: PartHeaders;
}

export function createScanner(boundary: string, maxHeaderBytes: number): PartScanner {
  // Every delimiter but the first is CRLF "--" boundary. The boundary alphabet has
  // no CR, so CR occurs in the needle only at index 0: a partial match held back at
  // the end of a chunk can only start at a CR, and if it fails no shorter match can
  // hide inside it.
  const needle = Buffer.from(`\r\n--${boundary}`, 'latin1');
  const needleLength = needle.length;

  let state: State = 'preamble';
  let chunk = EMPTY;
  let pos = 0;
  // Needle bytes matched at the end of earlier input (held back, not yet emitted).
  // The first boundary may open the body with no CRLF before it (RFC 2046 §5.1.1),
  // so scanning starts as if that CRLF had been seen.
  let matched = 2;
  let padding = 0;
  let preambleBytes = 0;
  let header: Buffer = Buffer.allocUnsafe(Math.min(INITIAL_HEADER_BUFFER, Math.max(maxHeaderBytes, 1)));
  let headerLength = 0;
  // Progress through CRLF CRLF; the boundary line's CRLF counts, so an empty header
  // block is a lone CRLF.
  let headerMatch = 2;

  const scanner: PartScanner = { push, next, data: EMPTY, headers: new Map() };
  return scanner;

  function push(input: Buffer): void {
    chunk = input;
    pos = 0;
  }

  function next(): ScanEvent {
    for (;;) {
      switch (state) {
        case 'preamble': {
          const before = pos;
          const found = search();
          if (found === 'delimiter') {
            state = 'after-boundary';
            continue;
          }
          // Bytes held back as a possible delimiter are not preamble (yet), so the
          // bound does not depend on where chunks happen to be cut.
          preambleBytes += pos - before;
          if (preambleBytes - matched > MAX_PREAMBLE_BYTES) {
            throw badRequest(`Malformed multipart body: no boundary in the first ${MAX_PREAMBLE_BYTES} bytes`);
          }
          if (found === 'need-more') return found;
          continue; // preamble bytes are ignored
        }
        case 'body': {
          const found = search();
          if (found !== 'delimiter') return found;
          state = 'after-boundary';
          return 'part-end';
        }
        case 'after-boundary': {
          if (pos >= chunk.length) return 'need-more';
          const byte = chunk[pos++]!;
          if (byte === CR) state = 'boundary-lf';
          else if (byte === DASH) state = 'close-dash';
          else if (byte === SP || byte === HTAB) {
            padding = 1;
            state = 'padding';
          } else if (byte === LF) throw badRequest('Malformed multipart body: lines must end with CRLF');
          // Content containing the whole delimiter is malformed (RFC 2046 §5.1.1).
          else throw badRequest('Malformed multipart body: boundary followed by other characters');
          continue;
        }
        case 'close-dash': {
          if (pos >= chunk.length) return 'need-more';
          if (chunk[pos++] !== DASH) throw badRequest('Malformed multipart body: bad close delimiter');
          state = 'done';
          continue;
        }
        case 'padding': {
          if (pos >= chunk.length) return 'need-more';
          const byte = chunk[pos++]!;
          if (byte === CR) state = 'boundary-lf';
          else if ((byte !== SP && byte !== HTAB) || ++padding > MAX_TRANSPORT_PADDING) {
            throw badRequest('Malformed multipart body: bad boundary line');
          }
          continue;
        }
        case 'boundary-lf': {
          if (pos >= chunk.length) return 'need-more';
          if (chunk[pos++] !== LF) throw badRequest('Malformed multipart body: lines must end with CRLF');
          headerLength = 0;
          headerMatch = 2;
          state = 'headers';
          continue;
        }
        case 'headers': {
          if (!readHeaderBytes()) return 'need-more';
          scanner.headers = parsePartHeaders(header.toString('utf8', 0, headerLength));
          state = 'body';
          return 'headers';
        }
        case 'done':
          return 'done';
      }
    }
  }

  /**
   * Looks for the delimiter from `pos`. Returns 'data' with content before it (or
   * held-back bytes that turned out not to be a delimiter), 'delimiter' once `pos`
   * is past it, or 'need-more' when the chunk is used up; a possible delimiter
   * prefix at the end of the chunk is held back in `matched` rather than emitted.
   */
  function search(): 'data' | 'delimiter' | 'need-more' {
    const length = chunk.length;
    if (matched > 0) {
      const wanted = needleLength - matched;
      const available = Math.min(length - pos, wanted);
      if (chunk.compare(needle, matched, matched + available, pos, pos + available) === 0) {
        pos += available;
        if (available === wanted) {
          matched = 0;
          return 'delimiter';
        }
        matched += available;
        return 'need-more';
      }
      // Not a delimiter after all: the held-back bytes were content. They are the
      // needle's own prefix; copy them so a consumer cannot scribble on the needle.
      scanner.data = Buffer.from(needle.subarray(0, matched));
      matched = 0;
      return 'data';
    }
    if (pos >= length) return 'need-more';

    const at = findDelimiter(pos);
    if (at === pos) {
      pos += needleLength;
      return 'delimiter';
    }
    if (at !== -1) {
      scanner.data = chunk.subarray(pos, at);
      pos = at;
      return 'data';
    }
    // No delimiter here; hold back the longest chunk suffix that starts one.
    let keep = length;
    for (let cr = chunk.indexOf(CR, Math.max(pos, length - needleLength + 1)); cr !== -1; cr = chunk.indexOf(CR, cr + 1)) {
      if (chunk.compare(needle, 0, length - cr, cr, length) === 0) {
        keep = cr;
        break;
      }
    }
    matched = length - keep;
    const start = pos;
    pos = length;
    if (keep === start) return 'need-more';
    scanner.data = chunk.subarray(start, keep);
    return 'data';
  }

  /** Index of the first whole delimiter in the chunk at or after `from`, or -1. */
  function findDelimiter(from: number): number {
    const length = chunk.length;
    let start = from;
    for (let misses = 0; misses < MAX_PREFIX_MISSES; misses++) {
      const at = chunk.indexOf(DELIMITER_PREFIX, start);
      // A delimiter that does not fit is left to the hold-back logic.
      if (at === -1 || at + needleLength > length) return -1;
      if (chunk.compare(needle, DELIMITER_PREFIX.length, needleLength, at + DELIMITER_PREFIX.length, at + needleLength) === 0) {
        return at;
      }
      start = at + 1;
    }
    return chunk.indexOf(needle, start);
  }

  /**
   * Copies header bytes until the block's empty line; true once complete. The copy
   * is bounded by maxHeaderBytes, so a client cannot make us buffer more.
   */
  function readHeaderBytes(): boolean {
    const length = chunk.length;
    let i = pos;
    let state = headerMatch;
    while (i < length && state !== 4) {
      if (headerLength + (i - pos) >= maxHeaderBytes) {
        throw payloadTooLarge(`Part header block exceeds ${maxHeaderBytes} bytes`);
      }
      const byte = chunk[i++];
      if (byte === CR) state = state === 2 ? 3 : 1;
      else if (byte === LF) state = state === 1 ? 2 : state === 3 ? 4 : 0;
      else state = 0;
    }
    const count = i - pos;
    if (headerLength + count > header.length) {
      const grown = Buffer.allocUnsafe(Math.min(Math.max(header.length * 2, headerLength + count), maxHeaderBytes));
      header.copy(grown, 0, 0, headerLength);
      header = grown;
    }
    chunk.copy(header, headerLength, pos, i);
    headerLength += count;
    pos = i;
    headerMatch = state;
    return state === 4;
  }
}
