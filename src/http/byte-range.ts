// One `Range: bytes=...` request (RFC 9110 14.2), enough for a launcher to resume a
// download (packages) or a client to read part of an image. Several ranges in one request are answered with the whole file, which
// the RFC allows; so is a header we cannot parse. The unit is case-insensitive, and
// a position of any length is read: an end past the file is cut to it (RFC 9110
// 14.1.2), a start past it is 416.

export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

export type RangeAnswer = ByteRange | 'unsatisfiable' | null;

const SINGLE = /^bytes=(\d*)-(\d*)$/i;

/** The inclusive byte range to send, 'unsatisfiable' for 416, or null to send the whole file. */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return null;
  const match = SINGLE.exec(header.trim());
  if (!match) return null;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return null;
  if (first === '') {
    // A suffix: the last N bytes.
    const length = Number(last);
    if (length === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}
