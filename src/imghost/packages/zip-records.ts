// The ZIP records a reader needs, as laid out in PKWARE's APPNOTE.TXT (6.3.x):
// the end of central directory record (4.3.16), its ZIP64 twin and locator (4.3.14,
// 4.3.15), central directory headers (4.3.12), local file headers (4.3.7) and the
// ZIP64 extended information extra field (4.5.3). Parsing only: what is allowed is
// zip-rules.ts's business. Every reader checks its bounds and returns null (or a
// reason) instead of throwing on a short or foreign buffer.

export const EOCD_SIGNATURE = 0x06054b50;
export const EOCD_SIZE = 22;
/** The end record's comment is at most 65,535 bytes: the record starts within this many from the end. */
export const EOCD_SEARCH_BYTES = EOCD_SIZE + 0xffff;
export const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
export const ZIP64_LOCATOR_SIZE = 20;
export const ZIP64_EOCD_SIGNATURE = 0x06064b50;
export const ZIP64_EOCD_SIZE = 56;
export const CENTRAL_SIGNATURE = 0x02014b50;
export const CENTRAL_SIZE = 46;
export const LOCAL_SIGNATURE = 0x04034b50;
export const LOCAL_SIZE = 30;
const ZIP64_EXTRA_ID = 0x0001;

export const FLAG_ENCRYPTED = 0x0001;
export const FLAG_STRONG_ENCRYPTION = 0x0040;
export const FLAG_UTF8 = 0x0800;
export const METHOD_STORED = 0;
export const METHOD_DEFLATED = 8;
/** WinZip AES: the entry is encrypted whatever its flags say. */
export const METHOD_AES = 99;
/** "Version made by" high byte: the external attributes hold a Unix mode. */
export const HOST_UNIX = 3;

export interface EndRecord {
  /** Where the record starts in the file. */
  offset: number;
  /** Non-zero in a split (multi-volume) archive. */
  diskNumber: number;
  entryCount: number;
  centralSize: number;
  centralOffset: number;
  /** Where the ZIP64 end record starts, when there is one: the central directory ends there. */
  zip64Offset?: number;
}

export interface CentralEntry {
  madeBy: number;
  flags: number;
  method: number;
  crc32: number;
  compressedSize: number;
  size: number;
  externalAttributes: number;
  localOffset: number;
  nameBytes: Buffer;
  /** The whole header's length: fixed part, name, extra field and comment. */
  length: number;
}

export interface LocalHeader {
  flags: number;
  method: number;
  nameBytes: Buffer;
  /** Fixed part, name and extra field: the data starts this far after the header. */
  length: number;
}

/** The last end record signature in `tail` (the file's last bytes), or -1. */
export function findEndRecord(tail: Buffer): number {
  for (let at = tail.length - EOCD_SIZE; at >= 0; at--) {
    // A comment may itself contain the signature; the record whose comment length
    // reaches exactly the end of the file is the real one.
    if (tail.readUInt32LE(at) === EOCD_SIGNATURE && at + EOCD_SIZE + tail.readUInt16LE(at + 20) === tail.length) return at;
  }
  return -1;
}

export function readEndRecord(buf: Buffer, at: number, fileOffset: number): EndRecord {
  return {
    offset: fileOffset,
    diskNumber: buf.readUInt16LE(at + 4) | buf.readUInt16LE(at + 6),
    entryCount: buf.readUInt16LE(at + 10),
    centralSize: buf.readUInt32LE(at + 12),
    centralOffset: buf.readUInt32LE(at + 16),
  };
}

/** True when any end-record field is saturated, which says "look in the ZIP64 record". */
export function needsZip64(end: EndRecord): boolean {
  return end.entryCount === 0xffff || end.centralSize === 0xffffffff || end.centralOffset === 0xffffffff;
}

/** The ZIP64 end record's offset from its locator (which sits just before the end record), or null. */
export function readZip64Locator(buf: Buffer): number | null {
  if (buf.length < ZIP64_LOCATOR_SIZE || buf.readUInt32LE(0) !== ZIP64_LOCATOR_SIGNATURE) return null;
  return safeNumber(buf.readBigUInt64LE(8));
}

export function readZip64EndRecord(buf: Buffer, fileOffset: number): EndRecord | null {
  if (buf.length < ZIP64_EOCD_SIZE || buf.readUInt32LE(0) !== ZIP64_EOCD_SIGNATURE) return null;
  const entryCount = safeNumber(buf.readBigUInt64LE(32));
  const centralSize = safeNumber(buf.readBigUInt64LE(40));
  const centralOffset = safeNumber(buf.readBigUInt64LE(48));
  if (entryCount === null || centralSize === null || centralOffset === null) return null;
  const diskNumber = buf.readUInt32LE(16) | buf.readUInt32LE(20);
  return { offset: fileOffset, diskNumber, entryCount, centralSize, centralOffset, zip64Offset: fileOffset };
}

/** One central directory header at `at`, or a reason it cannot be read. */
export function readCentralEntry(buf: Buffer, at: number): CentralEntry | string {
  if (at + CENTRAL_SIZE > buf.length || buf.readUInt32LE(at) !== CENTRAL_SIGNATURE) return 'its central directory is damaged';
  const nameLength = buf.readUInt16LE(at + 28);
  const extraLength = buf.readUInt16LE(at + 30);
  const commentLength = buf.readUInt16LE(at + 32);
  const length = CENTRAL_SIZE + nameLength + extraLength + commentLength;
  if (at + length > buf.length) return 'its central directory is damaged';
  const entry: CentralEntry = {
    madeBy: buf.readUInt16LE(at + 4),
    flags: buf.readUInt16LE(at + 8),
    method: buf.readUInt16LE(at + 10),
    crc32: buf.readUInt32LE(at + 16),
    compressedSize: buf.readUInt32LE(at + 20),
    size: buf.readUInt32LE(at + 24),
    externalAttributes: buf.readUInt32LE(at + 38),
    localOffset: buf.readUInt32LE(at + 42),
    nameBytes: buf.subarray(at + CENTRAL_SIZE, at + CENTRAL_SIZE + nameLength),
    length,
  };
  const extra = buf.subarray(at + CENTRAL_SIZE + nameLength, at + CENTRAL_SIZE + nameLength + extraLength);
  return applyZip64Extra(entry, extra) ?? entry;
}

/**
 * Saturated sizes and offset are in the ZIP64 extra field, in this order and only
 * those that are saturated (APPNOTE 4.5.3). Returns a reason when it is missing or short.
 */
function applyZip64Extra(entry: CentralEntry, extra: Buffer): string | null {
  const wanted = [entry.size === 0xffffffff, entry.compressedSize === 0xffffffff, entry.localOffset === 0xffffffff];
  if (!wanted.some(Boolean)) return null;
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const size = extra.readUInt16LE(at + 2);
    if (at + 4 + size > extra.length) break;
    if (id === ZIP64_EXTRA_ID) {
      let field = at + 4;
      const next = (): number | null => {
        if (field + 8 > at + 4 + size) return null;
        const value = safeNumber(extra.readBigUInt64LE(field));
        field += 8;
        return value;
      };
      if (wanted[0]) entry.size = next() ?? -1;
      if (wanted[1]) entry.compressedSize = next() ?? -1;
      if (wanted[2]) entry.localOffset = next() ?? -1;
      return entry.size < 0 || entry.compressedSize < 0 || entry.localOffset < 0 ? 'a ZIP64 entry has a damaged size field' : null;
    }
    at += 4 + size;
  }
  return 'a ZIP64 entry has no ZIP64 size field';
}

export function readLocalHeader(buf: Buffer): LocalHeader | null {
  if (buf.length < LOCAL_SIZE || buf.readUInt32LE(0) !== LOCAL_SIGNATURE) return null;
  const nameLength = buf.readUInt16LE(26);
  const extraLength = buf.readUInt16LE(28);
  if (buf.length < LOCAL_SIZE + nameLength) return null;
  return {
    flags: buf.readUInt16LE(6),
    method: buf.readUInt16LE(8),
    nameBytes: buf.subarray(LOCAL_SIZE, LOCAL_SIZE + nameLength),
    length: LOCAL_SIZE + nameLength + extraLength,
  };
}

/** A 64-bit field as a number, or null past 2^53 (no real file is that large). */
function safeNumber(value: bigint): number | null {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : null;
}
