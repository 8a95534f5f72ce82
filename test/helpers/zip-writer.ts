// Writes ZIP files for tests, honest or broken on purpose: every field a hostile
// archive could lie in can be overridden per entry. Layout per APPNOTE.TXT 4.3.
import { deflateRawSync } from 'node:zlib';
import { tableCrc32 } from '../../src/services/imghost/packages/crc32.js';

export interface ZipEntrySpec {
  name: string | Buffer;
  data?: Buffer;
  /** 0 stored, 8 deflated (default 8 for non-empty data). */
  method?: number;
  flags?: number;
  madeBy?: number;
  externalAttributes?: number;
  /** Lies in both headers. */
  declaredSize?: number;
  declaredCompressedSize?: number;
  declaredCrc?: number;
  /** Name in the local header only (a mismatch with the central directory). */
  localName?: string;
  /** Point this entry's central record at an earlier entry's local header (overlap). */
  sameDataAs?: number;
  /** Lies in the local header only (in its ZIP64 field with `zip64`). */
  localCrc?: number;
  localSize?: number;
  localCompressedSize?: number;
  /** Sets flag bit 3, leaves the local CRC and sizes 0 and writes them after the data, with or without the optional signature. */
  dataDescriptor?: 'signed' | 'unsigned';
  /** Extra fields (id, size, data) for one header, after the ZIP64 field. */
  localExtra?: Buffer;
  centralExtra?: Buffer;
  /** Bytes after the entry's data (and descriptor) that no record lists: a hidden entry, say. */
  after?: Buffer;
  /** Bytes after the entry's compressed data that its compressed size counts: past a deflate stream's end, where Node's inflate stops reading. */
  trailing?: Buffer;
}

export interface ZipSpec {
  /** Bytes before the archive (a self-extracting stub); offsets stay relative to the file start only with `adjustOffsets`. */
  prefix?: Buffer;
  adjustOffsets?: boolean;
  /** Write ZIP64 records and extra fields. */
  zip64?: boolean;
  /** With `zip64`: the 32-bit end record's values, saturated by default; 'real' writes those that fit as they are (Python's zipfile), an object lies. */
  end32?: 'real' | { diskEntryCount?: number; entryCount?: number; centralSize?: number; centralOffset?: number };
  /** With `zip64`: bytes between the ZIP64 end record and its locator, which still points at the record. */
  zip64Gap?: Buffer;
  /** With `zip64`: the locator's disk with the ZIP64 end record (0) and its count of disks (1). */
  locatorDisks?: [number, number];
  /** The archive comment, after the end record (a string is written as UTF-8). */
  comment?: string | Buffer;
}

const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
};
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};
const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};

/** APPNOTE 4.3.9: CRC and sizes after the data, 8-byte sizes in a ZIP64 archive. */
function dataDescriptor(signed: boolean, crc: number, csize: number, size: number, zip64 = false): Buffer {
  const sizes = zip64 ? [u64(csize), u64(size)] : [u32(csize), u32(size)];
  return Buffer.concat([signed ? u32(0x08074b50) : Buffer.alloc(0), u32(crc), ...sizes]);
}

export function buildZip(entries: ZipEntrySpec[], spec: ZipSpec = {}): Buffer {
  const prefix = spec.prefix ?? Buffer.alloc(0);
  const base = spec.adjustOffsets ? prefix.length : 0;
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  const offsets: number[] = [];
  let offset = 0;
  entries.forEach((entry) => {
    const name = typeof entry.name === 'string' ? Buffer.from(entry.name, 'utf8') : entry.name;
    const data = entry.data ?? Buffer.alloc(0);
    const method = entry.method ?? (data.length > 0 ? 8 : 0);
    const stored = Buffer.concat([method === 8 ? deflateRawSync(data) : data, entry.trailing ?? Buffer.alloc(0)]);
    const crc = entry.declaredCrc ?? tableCrc32(data, 0);
    const size = entry.declaredSize ?? data.length;
    const csize = entry.declaredCompressedSize ?? stored.length;
    const utf8Flag = /[^\x00-\x7f]/.test(name.toString('latin1')) ? 0x0800 : 0;
    const flags = entry.flags ?? ((entry.dataDescriptor ? 0x0008 : 0) | utf8Flag);
    const localName = entry.localName === undefined ? name : Buffer.from(entry.localName, 'utf8');
    const deferred = entry.dataDescriptor !== undefined;
    const localCrc = entry.localCrc ?? (deferred ? 0 : crc);
    const localSize = entry.localSize ?? (deferred ? 0 : size);
    const localCsize = entry.localCompressedSize ?? (deferred ? 0 : csize);
    const localExtra = Buffer.concat([
      spec.zip64 ? Buffer.concat([u16(1), u16(16), u64(localSize), u64(localCsize)]) : Buffer.alloc(0),
      entry.localExtra ?? Buffer.alloc(0),
    ]);
    const local = Buffer.concat([
      u32(0x04034b50), u16(spec.zip64 ? 45 : 20), u16(flags), u16(method), u16(0), u16(0x21),
      u32(localCrc), u32(spec.zip64 ? 0xffffffff : localCsize), u32(spec.zip64 ? 0xffffffff : localSize),
      u16(localName.length), u16(localExtra.length), localName, localExtra,
    ]);
    const descriptor = deferred ? dataDescriptor(entry.dataDescriptor === 'signed', crc, csize, size, spec.zip64) : Buffer.alloc(0);
    const after = entry.after ?? Buffer.alloc(0);
    let localOffset = base + offset;
    if (entry.sameDataAs !== undefined) {
      localOffset = offsets[entry.sameDataAs]!;
    } else {
      locals.push(local, stored, descriptor, after);
      offset += local.length + stored.length + descriptor.length + after.length;
    }
    offsets.push(localOffset);
    const centralExtra = Buffer.concat([
      spec.zip64 ? Buffer.concat([u16(1), u16(24), u64(size), u64(csize), u64(localOffset)]) : Buffer.alloc(0),
      entry.centralExtra ?? Buffer.alloc(0),
    ]);
    centrals.push(Buffer.concat([
      u32(0x02014b50), u16(entry.madeBy ?? 0x031e), u16(spec.zip64 ? 45 : 20), u16(flags), u16(method), u16(0), u16(0x21),
      u32(crc), u32(spec.zip64 ? 0xffffffff : csize), u32(spec.zip64 ? 0xffffffff : size),
      u16(name.length), u16(centralExtra.length), u16(0), u16(0), u16(0), u32(entry.externalAttributes ?? (0o100644 << 16)),
      u32(spec.zip64 ? 0xffffffff : localOffset), name, centralExtra,
    ]));
  });
  const central = Buffer.concat(centrals);
  const centralOffset = base + offset;
  const comment = typeof spec.comment === 'string' ? Buffer.from(spec.comment, 'utf8') : (spec.comment ?? Buffer.alloc(0));
  const tail: Buffer[] = [];
  if (spec.zip64) {
    const zip64Offset = centralOffset + central.length;
    const [locatorDisk, disks] = spec.locatorDisks ?? [0, 1];
    const real = { diskEntryCount: entries.length, entryCount: entries.length, centralSize: central.length, centralOffset };
    const saturated = { diskEntryCount: 0xffff, entryCount: 0xffff, centralSize: 0xffffffff, centralOffset: 0xffffffff };
    const end32 = spec.end32 === 'real' ? real : { ...saturated, ...spec.end32 };
    tail.push(
      Buffer.concat([u32(0x06064b50), u64(44), u16(45), u16(45), u32(0), u32(0), u64(entries.length), u64(entries.length), u64(central.length), u64(centralOffset)]),
      spec.zip64Gap ?? Buffer.alloc(0),
      Buffer.concat([u32(0x07064b50), u32(locatorDisk), u64(zip64Offset), u32(disks)]),
      Buffer.concat([
        u32(0x06054b50), u16(0), u16(0), u16(end32.diskEntryCount), u16(end32.entryCount), u32(end32.centralSize), u32(end32.centralOffset),
        u16(comment.length), comment,
      ]),
    );
  } else {
    tail.push(Buffer.concat([
      u32(0x06054b50), u16(0), u16(0), u16(entries.length), u16(entries.length), u32(central.length), u32(centralOffset), u16(comment.length), comment,
    ]));
  }
  return Buffer.concat([prefix, ...locals, central, ...tail]);
}

/** The least plugin.json the store accepts (issue 31): the plugin's id, a name and the version. */
export function manifestFor(id: string, version: string, fields: Record<string, unknown> = {}): Buffer {
  return Buffer.from(JSON.stringify({ id, name: `Plugin ${id}`, version, ...fields }));
}

/** A plugin package: `entries` after a plugin.json naming plugin `id` at `version` (with `fields`). */
export function pluginZip(id: string, version: string, entries: ZipEntrySpec[] = [], fields: Record<string, unknown> = {}): Buffer {
  return buildZip([{ name: 'plugin.json', data: manifestFor(id, version, fields) }, ...entries]);
}
