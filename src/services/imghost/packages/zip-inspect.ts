import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { createInflateRaw } from 'node:zlib';
import { crc32 } from './crc32.js';
import type { EntryReader } from './entry-reader.js';
import { createContentsReader, type PackageContents } from './package-contents.js';
import {
  EOCD_SEARCH_BYTES,
  EOCD_SIZE,
  endRecordsDisagree,
  findEndRecord,
  FLAG_DATA_DESCRIPTOR,
  FLAG_ENCRYPTED,
  FLAG_UTF8,
  holdsEndSignature,
  LOCAL_SIZE,
  localHeaderLength,
  METHOD_DEFLATED,
  needsZip64,
  readCentralEntry,
  readDataDescriptor,
  readEndRecord,
  readLocalHeader,
  readZip64EndRecord,
  readZip64Locator,
  ZIP64_EOCD_SIZE,
  ZIP64_LOCATOR_SIZE,
  type CentralEntry,
  type EndRecord,
  type LocalHeader,
} from './zip-records.js';
import { entryName, foldedName, MAX_ENTRIES, MAX_NAME_BYTES, MAX_TOTAL_UNCOMPRESSED, refusedEntry, secondName, unsafeName } from './zip-rules.js';

// A package is inspected from its spooled temporary file before it is kept: the
// central directory is read and checked against every local header, then each
// entry's data is inflated in memory, chunk by chunk, and thrown away, so that its
// real size and CRC are checked rather than the sizes it declares (a ZIP bomb lies
// about them). Nothing is ever written out.

/** Entries listed in an answer; the count is always complete. */
export const LISTED_ENTRIES = 1000;
/** 10,000 entries with long names and extra fields stay well below this. */
const MAX_CENTRAL_BYTES = 16 * 1024 * 1024;
/** Read at once for a local header: the longest accepted name and room for the usual extra fields. */
const LOCAL_READ_BYTES = LOCAL_SIZE + MAX_NAME_BYTES + 256;
/** A ZIP64 data descriptor with its signature. */
const MAX_DESCRIPTOR_BYTES = 24;

export interface ZipEntry {
  name: string;
  size: number;
  crc32: number;
}

export interface ZipInspection {
  /** The first LISTED_ENTRIES entries, in central directory order. */
  entries: ZipEntry[];
  entryCount: number;
  /** Sum of the entries' uncompressed sizes. */
  totalSize: number;
  /** Manifest, findings and each file's SHA-256, read from the same inflated bytes. */
  contents: PackageContents;
}

/** A file that is not an acceptable package; `reason` is for the uploader. */
export class ZipRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'ZipRefused';
  }
}

const refuse = (reason: string): never => {
  throw new ZipRefused(reason);
};

interface Named extends CentralEntry {
  name: string;
  /** Its place in the central directory, the order answers list entries in. */
  order: number;
}

interface Located extends Named {
  dataStart: number;
}

export async function inspectZip(path: string): Promise<ZipInspection> {
  const file = await open(path, 'r');
  let located: Located[];
  let end: EndRecord;
  try {
    const { size } = await file.stat();
    end = await readEnd(file, size);
    const entries = await readCentralDirectory(file, end);
    located = await checkLocalHeaders(file, entries, end);
  } finally {
    await file.close();
  }
  const inOrder = [...located].sort((a, b) => a.order - b.order);
  const contents = createContentsReader(inOrder);
  for (const entry of located.sort((a, b) => a.localOffset - b.localOffset)) {
    const reader = contents.read(entry);
    await verifyData(path, entry, reader);
    reader?.end();
  }
  return {
    entries: inOrder.slice(0, LISTED_ENTRIES).map(({ name, size, crc32 }) => ({ name, size, crc32 })),
    entryCount: inOrder.length,
    totalSize: inOrder.reduce((sum, entry) => sum + entry.size, 0),
    contents: contents.result(),
  };
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

async function readEnd(file: FileHandle, size: number): Promise<EndRecord> {
  if (size < EOCD_SIZE) refuse('it is not a ZIP file (too short)');
  const tailStart = Math.max(0, size - EOCD_SEARCH_BYTES);
  const tail = await readAt(file, tailStart, size - tailStart);
  const at = findEndRecord(tail);
  if (at < 0) refuse('it is not a ZIP file, or it is truncated (no end of central directory record)');
  // From the byte after the record's own signature: one may also start in its last
  // fields (a comment length of 0x4b50, "PK", and a comment that starts 5, 6).
  if (holdsEndSignature(tail.subarray(at + 1))) {
    refuse('its archive comment holds an end of central directory record, so other unzip tools would read another list of files from it');
  }
  const end32 = readEndRecord(tail, at, tailStart + at);
  const end = (await readZip64End(file, end32)) ?? end32;
  if (end.disk !== 0 || end.centralDisk !== 0) refuse(SPLIT);
  if (end.diskEntryCount !== end.entryCount) refuse('its end of central directory record is damaged (its two entry counts differ)');
  if (end.entryCount === 0) refuse('the ZIP holds no files');
  if (end.entryCount > MAX_ENTRIES) refuse(`the ZIP holds ${end.entryCount} entries; at most ${MAX_ENTRIES} are accepted`);
  const centralEnd = end.zip64Offset ?? end.offset;
  const actualStart = centralEnd - end.centralSize;
  if (actualStart > end.centralOffset) {
    refuse(`the file has ${actualStart - end.centralOffset} bytes before the ZIP archive (a self-extracting stub?); upload a plain ZIP`);
  }
  if (actualStart !== end.centralOffset) refuse('its central directory is damaged (offsets do not match)');
  if (end.centralSize > MAX_CENTRAL_BYTES) refuse('its central directory is too large');
  return end;
}

const SPLIT = 'it is a split (multi-part) archive; upload one ZIP file';

/**
 * The ZIP64 end record when a locator sits before the end record, or null. It must
 * end where its locator starts, as Python before the CVE-2025-8291 fix assumes
 * (it reads the 56 bytes there whatever the locator says), and the end record's
 * fields must be saturated or the same: unzip trusts those that are not.
 */
async function readZip64End(file: FileHandle, end: EndRecord): Promise<EndRecord | null> {
  const locatorOffset = end.offset - ZIP64_LOCATOR_SIZE;
  const locator = locatorOffset >= 0 ? readZip64Locator(await readAt(file, locatorOffset, ZIP64_LOCATOR_SIZE)) : null;
  if (locator === null) {
    if (needsZip64(end)) refuse('it is a ZIP64 file without its ZIP64 end record (damaged)');
    return null;
  }
  if (locator.disk !== 0 || locator.disks > 1) refuse(SPLIT);
  const notBefore = 'its ZIP64 end record is not directly before its locator, so unzip tools would disagree on where its list of files is';
  if (locator.offset + ZIP64_EOCD_SIZE !== locatorOffset) refuse(notBefore);
  const zip64 = readZip64EndRecord(await readAt(file, locator.offset, ZIP64_EOCD_SIZE), locator.offset);
  if (!zip64) return refuse('its ZIP64 end of central directory record is damaged');
  if (zip64.length !== ZIP64_EOCD_SIZE) refuse(notBefore);
  if (endRecordsDisagree(end, zip64)) {
    refuse('its 32-bit end record says otherwise than its ZIP64 end record (each field must be the same or saturated), so unzip tools would read two lists of files');
  }
  return zip64;
}

async function readCentralDirectory(file: FileHandle, end: EndRecord): Promise<Named[]> {
  const central = await readAt(file, end.centralOffset, end.centralSize);
  if (central.length !== end.centralSize) refuse('it is truncated (central directory cut short)');
  const entries: Named[] = [];
  const seen = new Map<string, string>();
  let total = 0;
  let at = 0;
  while (at < central.length) {
    if (entries.length === end.entryCount) refuse('its central directory is damaged (more entries than declared)');
    const entry = readCentralEntry(central, at);
    if (typeof entry === 'string') return refuse(entry);
    at += entry.length;
    const decoded = entryName(entry);
    if ('reason' in decoded) return refuse(decoded.reason);
    const { name } = decoded;
    const unsafe = secondName(entry.extra, entry.nameBytes, name) ?? unsafeName(name) ?? refusedEntry(entry, name);
    if (unsafe) refuse(unsafe);
    if (name.endsWith('/') && entry.size !== 0) refuse(`"${name}" is a folder with data`);
    const folded = foldedName(name);
    const twin = seen.get(folded);
    if (twin !== undefined) refuse(`"${twin}" and "${name}" are the same name on Windows and macOS`);
    seen.set(folded, name);
    total += entry.size;
    if (total > MAX_TOTAL_UNCOMPRESSED) refuse(`its files add up to more than ${MAX_TOTAL_UNCOMPRESSED / 1024 / 1024} MiB unpacked`);
    entries.push({ ...entry, name, order: entries.length });
  }
  if (entries.length !== end.entryCount) refuse('its central directory is damaged (fewer entries than declared)');
  return entries;
}

/**
 * Each local header must be where the central directory says and agree with it,
 * and the entries must follow each other with nothing between them but a data
 * descriptor, the last one ending where the central directory starts: a streaming
 * reader (Java's ZipInputStream, unzip libraries) walks the local headers, so it
 * would extract an entry hidden in a gap that the central directory does not
 * list. Their data must not overlap either (the overlapping kind of ZIP bomb
 * reuses one compressed stream for many entries). The first entry starts at 0:
 * bytes before it are a stub or garbage.
 */
async function checkLocalHeaders(file: FileHandle, entries: Named[], end: EndRecord): Promise<Located[]> {
  const byOffset = [...entries].sort((a, b) => a.localOffset - b.localOffset);
  const located: Located[] = [];
  for (const entry of byOffset) {
    const previous = located.at(-1);
    if (previous && entry.localOffset < dataEnd(previous)) refuse(`"${entry.name}" overlaps another entry (a ZIP bomb?)`);
    await checkGap(file, previous, entry.localOffset);
    const local = await readLocalAt(file, entry.localOffset);
    if (!local) refuse(`"${entry.name}" has no local header where the central directory says (damaged)`);
    if (localDiffers(local!, entry)) refuse(`"${entry.name}" differs between its local header and the central directory`);
    const twoNames = secondName(local!.extra, local!.nameBytes, entry.name);
    if (twoNames) refuse(twoNames);
    const dataStart = entry.localOffset + local!.length;
    if (dataStart + entry.compressedSize > end.centralOffset) refuse(`"${entry.name}" runs past the end of the data (truncated or damaged)`);
    located.push({ ...entry, dataStart });
  }
  await checkGap(file, located.at(-1), end.centralOffset);
  return located;
}

const dataEnd = (entry: Located) => entry.dataStart + entry.compressedSize;

/** The local header at `offset`, its extra field whole; most take one read. */
async function readLocalAt(file: FileHandle, offset: number): Promise<LocalHeader | null> {
  const first = await readAt(file, offset, LOCAL_READ_BYTES);
  const length = localHeaderLength(first);
  if (length === null) return null;
  return readLocalHeader(length <= first.length ? first : await readAt(file, offset, length));
}

/**
 * Whether the local header says otherwise than the central directory: a streaming
 * reader trusts its sizes and CRC. With a data descriptor they may be left 0.
 */
function localDiffers(local: LocalHeader, entry: Named): boolean {
  // A streaming reader decodes the local header's name by its own UTF-8 flag.
  const flagsCompared = FLAG_ENCRYPTED | FLAG_DATA_DESCRIPTOR | FLAG_UTF8;
  if (!local.nameBytes.equals(entry.nameBytes) || local.method !== entry.method || (local.flags & flagsCompared) !== (entry.flags & flagsCompared)) {
    return true;
  }
  const deferred = (entry.flags & FLAG_DATA_DESCRIPTOR) !== 0;
  const agrees = (value: number, central: number) => value === central || (deferred && value === 0);
  return !agrees(local.crc32, entry.crc32) || !agrees(local.compressedSize, entry.compressedSize) || !agrees(local.size, entry.size);
}

/** Refuses anything from the end of `previous`'s data (or the file's start) to `next` but `previous`'s data descriptor. */
async function checkGap(file: FileHandle, previous: Located | undefined, next: number): Promise<void> {
  if (!previous) {
    if (next > 0) refuse(`the file has ${next} bytes before its first entry; upload a plain ZIP`);
    return;
  }
  const gap = next - dataEnd(previous);
  if (gap === 0) return;
  if ((previous.flags & FLAG_DATA_DESCRIPTOR) !== 0 && gap <= MAX_DESCRIPTOR_BYTES) {
    const descriptor = readDataDescriptor(await readAt(file, dataEnd(previous), gap));
    const { crc32, compressedSize, size } = previous;
    if (descriptor?.crc32 === crc32 && descriptor.compressedSize === compressedSize && descriptor.size === size) return;
    if (descriptor) refuse(`"${previous.name}" differs between its data descriptor and the central directory`);
  }
  refuse('the ZIP has data between its entries that its directory does not list');
}

/** Inflates one entry in memory, bounded by its declared size, and checks its size and CRC; `reader` sees each chunk. */
async function verifyData(path: string, entry: Located, reader: EntryReader | null): Promise<void> {
  if (entry.compressedSize === 0 && entry.size === 0) return;
  const raw = createReadStream(path, { start: entry.dataStart, end: entry.dataStart + entry.compressedSize - 1 });
  const inflate = entry.method === METHOD_DEFLATED ? createInflateRaw() : null;
  const data = inflate ? raw.pipe(inflate) : raw;
  let size = 0;
  let crc = 0;
  try {
    for await (const chunk of data as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > entry.size) refuse(`"${entry.name}" unpacks to more than its declared size (a ZIP bomb?)`);
      crc = crc32(chunk, crc);
      reader?.update(chunk);
    }
  } catch (error) {
    if (error instanceof ZipRefused) throw error;
    refuse(`"${entry.name}" is damaged (its data cannot be unpacked)`);
  } finally {
    raw.destroy();
    data.destroy();
  }
  // Node's inflate stops at the stream's end and ignores what follows; a streaming
  // reader (libarchive on a pipe) goes on from there and reads the rest as a data
  // descriptor and more entries.
  const unread = inflate ? entry.compressedSize - inflate.bytesWritten : 0;
  if (unread > 0) refuse(`"${entry.name}" has ${unread} bytes after its compressed data ends, which a streaming unzip would read as more files`);
  if (size !== entry.size) refuse(`"${entry.name}" is damaged (it unpacks to ${size} bytes, not ${entry.size})`);
  if (crc !== entry.crc32) refuse(`"${entry.name}" is damaged (CRC mismatch)`);
}
