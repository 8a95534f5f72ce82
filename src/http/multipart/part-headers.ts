import { badRequest } from '../errors.js';

/** A part's header fields, names lower-cased. Keyed by client input, hence a Map. */
export type PartHeaders = Map<string, string>;

// RFC 9110 §5.1: a field name is a token; whitespace before the colon is forbidden
// (a classic smuggling vector), so it is not trimmed away.
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const EDGE_WHITESPACE = /^[ \t]+|[ \t]+$/g;

/** Headers we act on: two copies would let two parsers disagree, so refuse them. */
const SINGLE = new Set(['content-disposition', 'content-type']);

/**
 * Parses a header block that the scanner has cut at its empty line: either "\r\n"
 * alone (no fields) or lines each ending in CRLF followed by one more CRLF.
 */
export function parsePartHeaders(block: string): PartHeaders {
  const headers: PartHeaders = new Map();
  const lines = block.slice(0, -2).split('\r\n');
  lines.pop(); // the empty string after the last line's CRLF
  let last: string | undefined;
  for (const line of lines) {
    // A bare CR or LF: we only accept CRLF line endings (see scanner.ts).
    if (line.includes('\r') || line.includes('\n')) {
      throw badRequest('Malformed part header: lines must end with CRLF');
    }
    if (line.startsWith(' ') || line.startsWith('\t')) {
      // obs-fold: MIME part headers (RFC 5322 §2.2.3) may still be folded.
      if (last === undefined) throw badRequest('Malformed part header: continuation without a field');
      headers.set(last, `${headers.get(last)!} ${line.replace(EDGE_WHITESPACE, '')}`);
      continue;
    }
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    if (colon <= 0 || !FIELD_NAME.test(name)) throw badRequest('Malformed part header');
    const value = line.slice(colon + 1).replace(EDGE_WHITESPACE, '');
    const previous = headers.get(name);
    if (previous === undefined) {
      headers.set(name, value);
    } else if (SINGLE.has(name)) {
      throw badRequest(`Part has more than one ${name} header`);
    } else {
      headers.set(name, `${previous}, ${value}`);
    }
    last = name;
  }
  return headers;
}
