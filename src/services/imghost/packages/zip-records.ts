// The ZIP records a reader needs, as laid out in PKWARE's APPNOTE.TXT (6.3.x):
// the end of central directory record (4.3.16), its ZIP64 twin and locator (4.3.14,
// 4.3.15), central directory headers (4.3.12), local file headers (4.3.7), data
// descriptors (4.3.9), extra fields (4.5.1), the ZIP64 extended information extra
// field (4.5.3) and Info-ZIP's Unicode Path extra field (4.6.9). Parsing only: what
// is allowed is zip-rules.ts's business. Every reader checks its bounds and returns
// null (or a reason) instead of throwing on a short or foreign buffer.

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
export const DESCRIPTOR_SIGNATURE = 0x08074b50;
const ZIP64_EXTRA_ID = 0x0001;
export const UNICODE_PATH_EXTRA_ID = 0x7075;
/** A 4-byte size or offset with this value is in the ZIP64 extra field instead. */
const SATURATED = 0xffffffff;

export const FLAG_ENCRYPTED = 0x0001;
/** The local header's CRC and sizes may be 0: they follow the data, in a data descriptor. */
export const FLAG_DATA_DESCRIPTOR = 0x0008;
export const FLAG_STRONG_ENCRYPTION = 0x0040;
export const FLAG_UTF8 = 0x0800;
export const METHOD_STORED = 0;
export const METHOD_DEFLATED = 8;
/** WinZip AES: the entry is encrypted whatever its flags say. */
export const METHOD_AES = 99;

export interface EndRecord {
  /** Where the record starts in the file. */
  offset: number;
  /** This disk's number and the central directory's: both 0 unless the archive is split (multi-volume). */
  disk: number;
  centralDisk: number;
  /** Entries on this disk: all of them unless the archive is split. */
  diskEntryCount: number;
  entryCount: number;
  centralSize: number;
  centralOffset: number;
  /** Where the ZIP64 end record starts, when there is one: the central directory ends there. */
  zip64Offset?: number;
}

export interface Zip64EndRecord extends EndRecord {
  /** The whole record's length as it declares it: ZIP64_EOCD_SIZE unless an extensible data sector follows. */
  length: number;
}

export interface Zip64Locator {
  /** Where the ZIP64 end record starts. */
  offset: number;
  /** The disk it is on (0), and how many disks there are (1, or 0 from some writers). */
  disk: number;
  disks: number;
}

export interface CentralEntry {
  flags: number;
  method: number;
  crc32: number;
  compressedSize: number;
  size: number;
  externalAttributes: number;
  localOffset: number;
  nameBytes: Buffer;
  extra: Buffer;
  /** The whole header's length: fixed part, name, extra field and comment. */
  length: number;
}

export interface LocalHeader {
  flags: number;
  method: number;
  crc32: number;
  compressedSize: number;
  size: number;
  nameBytes: Buffer;
  extra: Buffer;
  /** Fixed part, name and extra field: the data starts this far after the header. */
  length: number;
}

export interface DataDescriptor {
  crc32: number;
  compressedSize: number;
  size: number;
}

export interface UnicodePath {
  /** The CRC-32 of the header's name this name stands for. */
  nameCrc: number;
  /** UTF-8. */
  nameBytes: Buffer;
}

/** The end record in `tail` (the file's last bytes) whose comment reaches the end of the file, or -1. */
export function findEndRecord(tail: Buffer): number {
  for (let at = tail.length - EOCD_SIZE; at >= 0; at--) {
    // A comment may itself contain the signature; the record whose comment length
    // reaches exactly the end of the file is the real one.
    if (tail.readUInt32LE(at) === EOCD_SIGNATURE && at + EOCD_SIZE + tail.readUInt16LE(at + 20) === tail.length) return at;
  }
  return -1;
}

/**
 * Whether `buf` holds the signature of an end record, a ZIP64 end record or a ZIP64
 * locator anywhere. Python, unzip and libarchive take the last end record
 * signature in the file as the end of the archive, whatever its comment length says.
 */
export function holdsEndSignature(buf: Buffer): boolean {
  for (let at = 0; at + 4 <= buf.length; at++) {
    const word = buf.readUInt32LE(at);
    if (word === EOCD_SIGNATURE || word === ZIP64_EOCD_SIGNATURE || word === ZIP64_LOCATOR_SIGNATURE) return true;
  }
  return false;
}

export function readEndRecord(buf: Buffer, at: number, fileOffset: number): EndRecord {
  return {
    offset: fileOffset,
    disk: buf.readUInt16LE(at + 4),
    centralDisk: buf.readUInt16LE(at + 6),
    diskEntryCount: buf.readUInt16LE(at + 8),
    entryCount: buf.readUInt16LE(at + 10),
    centralSize: buf.readUInt32LE(at + 12),
    centralOffset: buf.readUInt32LE(at + 16),
  };
}

/** True when any end-record field is saturated, which says "look in the ZIP64 record". */
export function needsZip64(end: EndRecord): boolean {
  return end.entryCount === 0xffff || end.centralSize === SATURATED || end.centralOffset === SATURATED;
}

/**
 * Whether a 32-bit end record says otherwise than its ZIP64 twin: each field must be
 * saturated ("see the ZIP64 record") or the same value, or readers that trust
 * either record read two different central directories.
 */
export function endRecordsDisagree(end: EndRecord, zip64: EndRecord): boolean {
  const saturated: Array<[keyof EndRecord, number]> = [
    ['disk', 0xffff], ['centralDisk', 0xffff], ['diskEntryCount', 0xffff], ['entryCount', 0xffff],
    ['centralSize', SATURATED], ['centralOffset', SATURATED],
  ];
  return saturated.some(([field, value]) => end[field] !== value && end[field] !== zip64[field]);
}

/** The ZIP64 locator (which sits just before the end record), or null. */
export function readZip64Locator(buf: Buffer): Zip64Locator | null {
  if (buf.length < ZIP64_LOCATOR_SIZE || buf.readUInt32LE(0) !== ZIP64_LOCATOR_SIGNATURE) return null;
  const offset = safeNumber(buf.readBigUInt64LE(8));
  return offset === null ? null : { offset, disk: buf.readUInt32LE(4), disks: buf.readUInt32LE(16) };
}

export function readZip64EndRecord(buf: Buffer, fileOffset: number): Zip64EndRecord | null {
  if (buf.length < ZIP64_EOCD_SIZE || buf.readUInt32LE(0) !== ZIP64_EOCD_SIGNATURE) return null;
  const length = safeNumber(buf.readBigUInt64LE(4) + 12n);
  const diskEntryCount = safeNumber(buf.readBigUInt64LE(24));
  const entryCount = safeNumber(buf.readBigUInt64LE(32));
  const centralSize = safeNumber(buf.readBigUInt64LE(40));
  const centralOffset = safeNumber(buf.readBigUInt64LE(48));
  if (length === null || diskEntryCount === null || entryCount === null || centralSize === null || centralOffset === null) return null;
  const [disk, centralDisk] = [buf.readUInt32LE(16), buf.readUInt32LE(20)];
  return { offset: fileOffset, length, disk, centralDisk, diskEntryCount, entryCount, centralSize, centralOffset, zip64Offset: fileOffset };
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
    flags: buf.readUInt16LE(at + 8),
    method: buf.readUInt16LE(at + 10),
    crc32: buf.readUInt32LE(at + 16),
    compressedSize: buf.readUInt32LE(at + 20),
    size: buf.readUInt32LE(at + 24),
    externalAttributes: buf.readUInt32LE(at + 38),
    localOffset: buf.readUInt32LE(at + 42),
    nameBytes: buf.subarray(at + CENTRAL_SIZE, at + CENTRAL_SIZE + nameLength),
    extra: buf.subarray(at + CENTRAL_SIZE + nameLength, at + CENTRAL_SIZE + nameLength + extraLength),
    length,
  };
  return applyZip64Extra(entry) ?? entry;
}

/** Saturated sizes and offset are in the ZIP64 extra field. Returns a reason when it is missing or short. */
function applyZip64Extra(entry: CentralEntry): string | null {
  const declared = [entry.size, entry.compressedSize, entry.localOffset];
  if (!declared.includes(SATURATED)) return null;
  const field = extraFields(entry.extra, ZIP64_EXTRA_ID)?.[0];
  if (!field) return 'a ZIP64 entry has no ZIP64 size field';
  const values = zip64Values(field, declared);
  if (!values) return 'a ZIP64 entry has a damaged size field';
  [entry.size, entry.compressedSize, entry.localOffset] = values as [number, number, number];
  return null;
}

/**
 * `declared` with each saturated value replaced by the ZIP64 field's next 8-byte
 * one: the field holds only those that are saturated, in this order (APPNOTE
 * 4.5.3). Null when it is short or a value is past 2^53.
 */
function zip64Values(field: Buffer, declared: number[]): number[] | null {
  let at = 0;
  const values = declared.map((value) => {
    if (value !== SATURATED) return value;
    at += 8;
    return at <= field.length ? safeNumber(field.readBigUInt64LE(at - 8)) : null;
  });
  return values.includes(null) ? null : (values as number[]);
}

/** The data of every field of this id in an extra field block, or null when a field runs past the block. */
export function extraFields(extra: Buffer, id: number): Buffer[] | null {
  const fields: Buffer[] = [];
  for (let at = 0; at + 4 <= extra.length; ) {
    const end = at + 4 + extra.readUInt16LE(at + 2);
    if (end > extra.length) return null;
    if (extra.readUInt16LE(at) === id) fields.push(extra.subarray(at + 4, end));
    at = end;
  }
  return fields;
}

/** The length of the local header that `buf` starts with (fixed part, name, extra field), or null when it is none. */
export function localHeaderLength(buf: Buffer): number | null {
  if (buf.length < LOCAL_SIZE || buf.readUInt32LE(0) !== LOCAL_SIGNATURE) return null;
  return LOCAL_SIZE + buf.readUInt16LE(26) + buf.readUInt16LE(28);
}

/**
 * The local header that `buf` starts with, its extra field whole, or null. Saturated
 * sizes are read from its ZIP64 field; without one they stay saturated, which no
 * central directory agrees with.
 */
export function readLocalHeader(buf: Buffer): LocalHeader | null {
  const length = localHeaderLength(buf);
  if (length === null || buf.length < length) return null;
  const nameLength = buf.readUInt16LE(26);
  const extra = buf.subarray(LOCAL_SIZE + nameLength, length);
  const declared = [buf.readUInt32LE(22), buf.readUInt32LE(18)];
  const zip64 = extraFields(extra, ZIP64_EXTRA_ID)?.[0];
  const [size, compressedSize] = (zip64 && zip64Values(zip64, declared)) ?? declared;
  return {
    flags: buf.readUInt16LE(6),
    method: buf.readUInt16LE(8),
    crc32: buf.readUInt32LE(14),
    compressedSize: compressedSize!,
    size: size!,
    nameBytes: buf.subarray(LOCAL_SIZE, LOCAL_SIZE + nameLength),
    extra,
    length,
  };
}

/**
 * The data descriptor that fills `buf` exactly: 12 bytes, or 16 with the optional
 * signature first; 20 or 24 with ZIP64's 8-byte sizes. Null for any other length
 * or a wrong signature.
 */
export function readDataDescriptor(buf: Buffer): DataDescriptor | null {
  const signed = buf.length === 16 || buf.length === 24;
  if (signed && buf.readUInt32LE(0) !== DESCRIPTOR_SIGNATURE) return null;
  const at = signed ? 4 : 0;
  switch (buf.length - at) {
    case 12:
      return { crc32: buf.readUInt32LE(at), compressedSize: buf.readUInt32LE(at + 4), size: buf.readUInt32LE(at + 8) };
    case 20: {
      const compressedSize = safeNumber(buf.readBigUInt64LE(at + 4));
      const size = safeNumber(buf.readBigUInt64LE(at + 12));
      return compressedSize === null || size === null ? null : { crc32: buf.readUInt32LE(at), compressedSize, size };
    }
    default:
      return null;
  }
}

/** Info-ZIP's Unicode Path field (version 1, the CRC-32 of the header's name, the UTF-8 name), or null when it is not one. */
export function readUnicodePath(field: Buffer): UnicodePath | null {
  if (field.length < 5 || field[0] !== 1) return null;
  return { nameCrc: field.readUInt32LE(1), nameBytes: field.subarray(5) };
}

/** A 64-bit field as a number, or null past 2^53 (no real file is that large). */
function safeNumber(value: bigint): number | null {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : null;
}
