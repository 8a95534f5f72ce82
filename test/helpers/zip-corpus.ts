// The ZIP inspector's corpus, made here rather than kept as files: honest archives
// (as zip, Python's zipfile, jar and 7-Zip write them) that the inspector must accept
// with their entries listed, and hostile or broken ones it must refuse, each with the
// reason it gives. zip.test.ts runs the inspector over it; scripts/zip-differential.ts
// checks that python3, unzip and bsdtar list each accepted one as the inspector does.
import { randomBytes } from 'node:crypto';
import { deflateRawSync, crc32 as zlibCrc32 } from 'node:zlib';
import { MAX_ENTRIES } from '../../src/services/imghost/packages/zip-rules.js';
import { buildZip, type ZipEntrySpec } from './zip-writer.js';

export interface AcceptedArchive {
  what: string;
  zip: Buffer;
  /** Its entries. */
  count: number;
}

export interface RefusedArchive {
  what: string;
  zip: Buffer;
  /** What the refusal says. */
  reason: RegExp;
}

export const text = (s: string) => Buffer.from(s, 'utf8');
export const plugin: ZipEntrySpec[] = [
  { name: 'plugin.json', data: text('{"id":"demo","version":"1.0.0"}') },
  { name: 'lib/', data: Buffer.alloc(0), method: 0 },
  { name: 'lib/main.py', data: text('print("hello")\n'.repeat(20)) },
  { name: 'assets/icon.bin', data: randomBytes(3000), method: 0 },
];
export const honest = buildZip(plugin);

/** An Info-ZIP Unicode Path extra field (0x7075): a version, the CRC-32 of the header's name, a UTF-8 name. */
function unicodePath(headerName: string, name: string, version = 1): Buffer {
  const head = Buffer.alloc(9);
  head.writeUInt16LE(0x7075, 0);
  head.writeUInt16LE(5 + Buffer.byteLength(name), 2);
  head.writeUInt8(version, 4);
  head.writeUInt32LE(zlibCrc32(text(headerName)), 5);
  return Buffer.concat([head, text(name)]);
}
/**
 * Python's zipfile writing to a stream, Java's jar and zip to a pipe put the CRC and
 * sizes after the data; only deflated entries may (a stored one has no end a
 * streaming reader can find).
 */
const withDescriptors = (form: 'signed' | 'unsigned') =>
  plugin.map((entry) => (entry.method === 0 ? entry : { ...entry, dataDescriptor: form }));
const utf8Flag = 0x0800;

export const acceptedArchives: AcceptedArchive[] = [
  { what: 'a plain archive, stored and deflated entries', zip: honest, count: 4 },
  { what: 'ZIP64 records and extra fields', zip: buildZip(plugin, { zip64: true }), count: 4 },
  { what: 'ZIP64 end records whose 32-bit fields that fit are written as they are (Python’s zipfile)', zip: buildZip(plugin, { zip64: true, end32: 'real' }), count: 4 },
  // git archive and GitHub's source ZIPs put the commit id there.
  { what: 'an archive comment (a commit id, as git archive writes)', zip: buildZip(plugin, { comment: '4edd70a1b2c3d4e5f60718293a4b5c6d7e8f9012' }), count: 4 },
  { what: 'UTF-8 names (Chinese), flagged', zip: buildZip([{ name: '说明/读我.txt', data: text('你好') }]), count: 1 },
  { what: 'UTF-8 names (accents, Arabic, an emoji), flagged', zip: buildZip([{ name: 'café/straße.txt', data: text('a') }, { name: 'ملف.txt', data: text('b') }, { name: '🎮.png', data: text('c') }]), count: 3 },
  { what: 'names that only look like Windows devices or dots', zip: buildZip([{ name: 'console.txt', data: text('x') }, { name: 'nullable/.config', data: text('y') }, { name: 'v1.2/a b.txt', data: text('z') }]), count: 3 },
  { what: 'data descriptors with their signature (Python’s zipfile on a stream)', zip: buildZip(withDescriptors('signed')), count: 4 },
  { what: 'data descriptors without their signature', zip: buildZip(withDescriptors('unsigned')), count: 4 },
  { what: 'ZIP64 data descriptors (Python’s zipfile, force_zip64, on a stream)', zip: buildZip(withDescriptors('signed'), { zip64: true }), count: 4 },
  {
    what: 'a Unicode Path field that repeats a flagged UTF-8 name',
    zip: buildZip([{ name: 'é.txt', data: text('x'), flags: utf8Flag, localExtra: unicodePath('é.txt', 'é.txt'), centralExtra: unicodePath('é.txt', 'é.txt') }]),
    count: 1,
  },
  {
    what: '1,500 entries, more than an answer lists',
    zip: buildZip(Array.from({ length: 1500 }, (_, i) => ({ name: `f/${i}.txt`, data: text(String(i)), method: 0 }))),
    count: 1500,
  },
];

const deflated = (size: number) => Buffer.alloc(size, 0x61);
const unixMode = (mode: number) => mode << 16;
const stub = Buffer.concat([text('MZ'), randomBytes(510)]);
const truncated = honest.subarray(0, honest.length - 10);

export const refusedArchives: RefusedArchive[] = [
  { what: 'not a ZIP at all', zip: text('hello, this is text and not an archive at all'), reason: /not a ZIP/ },
  { what: 'an empty file', zip: Buffer.alloc(0), reason: /not a ZIP/ },
  { what: 'truncated: the end record cut off', zip: truncated, reason: /not a ZIP|truncated/ },
  { what: 'truncated: data cut out of the middle', zip: Buffer.concat([honest.subarray(0, 40), honest.subarray(200)]), reason: /damaged|truncated|before/ },
  { what: 'no entries', zip: buildZip([]), reason: /no files/ },
  { what: 'a prepended stub (self-extracting)', zip: buildZip(plugin, { prefix: stub }), reason: /before the ZIP archive/ },
  { what: 'a prepended stub with offsets adjusted', zip: buildZip(plugin, { prefix: stub, adjustOffsets: true }), reason: /before its first entry/ },
  { what: 'a deflate bomb (over 100:1)', zip: buildZip([{ name: 'zeros.bin', data: Buffer.alloc(4 * 1024 * 1024) }]), reason: /100 times/ },
  {
    what: 'a bomb lying about its size',
    zip: buildZip([{ name: 'liar.bin', data: deflated(2 * 1024 * 1024), declaredSize: 1000 }]),
    reason: /more than its declared size|damaged/,
  },
  {
    what: 'overlapping entries (one stream, many names)',
    zip: buildZip([{ name: 'a.txt', data: text('x'.repeat(500)) }, { name: 'b.txt', data: text('x'.repeat(500)), sameDataAs: 0 }]),
    reason: /overlaps|differs/,
  },
  {
    what: `more than ${MAX_ENTRIES} entries`,
    zip: buildZip(Array.from({ length: MAX_ENTRIES + 1 }, (_, i) => ({ name: `${i}`, method: 0 }))),
    reason: /at most 10000/,
  },
  {
    what: 'more than 512 MiB unpacked in all',
    zip: buildZip(Array.from({ length: 90 }, (_, i) => ({ name: `big${i}.bin`, data: randomBytes(64), declaredSize: 6 * 1024 * 1024, declaredCompressedSize: 70 * 1024 }))),
    reason: /512 MiB/,
  },
  { what: 'a ".." segment', zip: buildZip([{ name: 'a/../../evil.txt', data: text('x') }]), reason: /"\.\." segment/ },
  { what: 'a leading ".." segment', zip: buildZip([{ name: '../evil.txt', data: text('x') }]), reason: /"\.\." segment/ },
  { what: 'an absolute name', zip: buildZip([{ name: '/etc/passwd', data: text('x') }]), reason: /absolute/ },
  { what: 'a backslash', zip: buildZip([{ name: '..\\..\\evil.txt', data: text('x') }]), reason: /backslash/ },
  { what: 'a drive letter', zip: buildZip([{ name: 'C:/Windows/evil.dll', data: text('x') }]), reason: /drive letter/ },
  { what: 'Windows: a segment that is ".." once its trailing space goes', zip: buildZip([{ name: 'a/.. /evil.txt', data: text('x') }]), reason: /dot or a space/ },
  { what: 'Windows: a twin by a trailing dot', zip: buildZip([{ name: 'a.txt', data: text('x') }, { name: 'a.txt.', data: text('y') }]), reason: /dot or a space/ },
  { what: 'Windows: an alternate data stream', zip: buildZip([{ name: 'a.txt:hidden', data: text('x') }]), reason: /Windows does not allow/ },
  { what: 'Windows: a character it refuses', zip: buildZip([{ name: 'what?.txt', data: text('x') }]), reason: /Windows does not allow/ },
  { what: 'Windows: a device name with an extension', zip: buildZip([{ name: 'lib/NUL.txt', data: text('x') }]), reason: /device name/ },
  { what: 'Windows: a device name as a folder', zip: buildZip([{ name: 'com1/a.txt', data: text('x') }]), reason: /device name/ },
  { what: 'a NUL in a name', zip: buildZip([{ name: 'a.txt\u0000.exe', data: text('x') }]), reason: /control character/ },
  { what: 'a control character in a name', zip: buildZip([{ name: 'a\u001b[31m.txt', data: text('x') }]), reason: /control character/ },
  { what: 'a name not UTF-8', zip: buildZip([{ name: Buffer.from([0x66, 0xff, 0xfe, 0x2e, 0x74]), data: text('x'), flags: 0 }]), reason: /UTF-8/ },
  { what: 'names equal when case folds', zip: buildZip([{ name: 'Readme.TXT', data: text('a') }, { name: 'readme.txt', data: text('b') }]), reason: /same name/ },
  { what: 'names equal when ß folds', zip: buildZip([{ name: 'STRASSE', data: text('a') }, { name: 'straße', data: text('b') }]), reason: /same name/ },
  { what: 'names equal after Unicode normalisation', zip: buildZip([{ name: 'caf\u00e9', data: text('a') }, { name: 'cafe\u0301', data: text('b') }]), reason: /same name/ },
  { what: 'a symbolic link', zip: buildZip([{ name: 'link', data: text('/etc/passwd'), method: 0, externalAttributes: unixMode(0o120777) }]), reason: /symbolic link/ },
  { what: 'an encrypted entry', zip: buildZip([{ name: 'secret.txt', data: text('x'.repeat(20)), flags: 1 }]), reason: /encrypted/ },
  { what: 'an AES-encrypted entry (method 99)', zip: buildZip([{ name: 'secret.txt', data: text('xx'), method: 99 }]), reason: /encrypted/ },
  { what: 'an unknown compression method', zip: buildZip([{ name: 'a.bz', data: text('xx'), method: 12 }]), reason: /compression method 12/ },
  { what: 'a CRC that does not match', zip: buildZip([{ name: 'a.txt', data: text('hello'), declaredCrc: 1234 }]), reason: /CRC/ },
  { what: 'local and central names differ', zip: buildZip([{ name: 'safe.txt', localName: 'evil.exe', data: text('x') }]), reason: /differs/ },
  { what: 'a folder with data', zip: buildZip([{ name: 'dir/', data: text('x'), method: 0 }]), reason: /folder/ },
  ...hiddenEntries(),
  ...secondNames(),
  ...linksFromAnyHost(),
  ...localHeaderLies(),
  ...streamingReaderEntries(),
  ...endRecordsInComments(),
  ...zip64TwoWays(),
  ...namesDecodedOtherwise(),
  ...invisibleNames(),
];

/** An entry's local header and data alone, as a streaming reader finds them: what buildZip writes before its central directory. */
function localRecord(entry: ZipEntrySpec): Buffer {
  const zip = buildZip([entry]);
  return zip.subarray(0, zip.readUInt32LE(zip.length - 6));
}

/** Streaming readers (Java's ZipInputStream, unzip libraries) walk the local headers and extract an entry the central directory does not list. */
function hiddenEntries(): RefusedArchive[] {
  const evil = localRecord({ name: '../../evil.txt', data: text('evil'), method: 0 });
  const unlisted = /data between its entries that its directory does not list/;
  const mainPy = plugin[2]!;
  const notItsDescriptor = Buffer.alloc(16);
  notItsDescriptor.writeUInt32LE(0x08074b50, 0);
  return [
    { what: 'hidden: an unlisted entry between two entries', zip: buildZip([{ ...mainPy, after: evil }, plugin[0]!]), reason: unlisted },
    { what: 'hidden: an unlisted entry after the last one', zip: buildZip([plugin[0]!, { ...mainPy, after: evil }]), reason: unlisted },
    { what: 'hidden: an unlisted entry after a data descriptor', zip: buildZip([{ ...mainPy, dataDescriptor: 'signed', after: evil }, plugin[0]!]), reason: unlisted },
    { what: 'hidden: a data descriptor that says otherwise than the central directory', zip: buildZip([{ ...mainPy, flags: 0x0008, after: notItsDescriptor }]), reason: /data descriptor/ },
  ];
}

/** unzip and 7-Zip extract under the Unicode Path field's name (0x7075) rather than the header's. */
function secondNames(): RefusedArchive[] {
  const safe = { name: 'safe.txt', data: text('x') };
  const twoNames = /two different names/;
  const damaged = /damaged/;
  return [
    { what: 'second name: a Unicode Path field naming another file, central directory', zip: buildZip([{ ...safe, centralExtra: unicodePath('safe.txt', '../../evil.txt') }]), reason: twoNames },
    { what: 'second name: a Unicode Path field naming another file, local header', zip: buildZip([{ ...safe, localExtra: unicodePath('safe.txt', '../../evil.txt') }]), reason: twoNames },
    { what: 'second name: a Unicode Path field naming a case twin', zip: buildZip([plugin[0]!, { ...safe, centralExtra: unicodePath('safe.txt', 'PLUGIN.JSON') }]), reason: twoNames },
    { what: 'second name: a Unicode Path field of an unknown version', zip: buildZip([{ ...safe, centralExtra: unicodePath('safe.txt', 'safe.txt', 2) }]), reason: damaged },
    { what: 'second name: a Unicode Path field for another header name', zip: buildZip([{ ...safe, centralExtra: unicodePath('other.txt', 'safe.txt') }]), reason: damaged },
    { what: 'second name: a Unicode Path field too short for its CRC', zip: buildZip([{ ...safe, centralExtra: Buffer.from([0x75, 0x70, 3, 0, 1, 0, 0]) }]), reason: damaged },
    { what: 'second name: a Unicode Path field running past its extra field', zip: buildZip([{ ...safe, centralExtra: unicodePath('safe.txt', 'safe.txt').subarray(0, 12) }]), reason: damaged },
  ];
}

/** Info-ZIP reads the high 16 bits of the external attributes as a Unix mode from any host that sets them, not only Unix. */
function linksFromAnyHost(): RefusedArchive[] {
  const link = { name: 'link', data: text('../../x'), method: 0, externalAttributes: unixMode(0o120777) };
  const hosts = [['MS-DOS', 0], ['Atari', 5], ['BeOS', 16], ['Darwin', 19]] as const;
  return [
    ...hosts.map(([host, id]) => ({ what: `link: a symbolic link made on ${host}`, zip: buildZip([{ ...link, madeBy: (id << 8) | 30 }]), reason: /symbolic link/ })),
    { what: 'link: a Windows reparse point (an NTFS link)', zip: buildZip([{ ...link, madeBy: 0x0a1e, externalAttributes: 0x400 }]), reason: /symbolic link/ },
  ];
}

/** A streaming reader trusts the local header's CRC and sizes; they must be the central directory's. */
function localHeaderLies(): RefusedArchive[] {
  const a = { name: 'a.txt', data: text('0123456789'), method: 0 };
  const inconsistent = /differs between its local header and the central directory/;
  return [
    { what: 'local header: another CRC', zip: buildZip([{ ...a, localCrc: 1234 }]), reason: inconsistent },
    { what: 'local header: another size', zip: buildZip([{ ...a, localSize: 20, localCompressedSize: 20 }, plugin[0]!]), reason: inconsistent },
    { what: 'local header: another compressed size', zip: buildZip([{ ...plugin[2]!, localCompressedSize: 5 }]), reason: inconsistent },
    { what: 'local header: other ZIP64 sizes', zip: buildZip([{ ...a, localSize: 20, localCompressedSize: 20 }], { zip64: true }), reason: inconsistent },
    { what: 'local header: another CRC beside a data descriptor', zip: buildZip([{ ...a, method: 8, dataDescriptor: 'signed', localCrc: 1234 }]), reason: inconsistent },
  ];
}

/** A copy of `zip` with the byte at `at` changed. */
function withByte(zip: Buffer, at: number, change: (byte: number) => number): Buffer {
  const copy = Buffer.from(zip);
  copy[at] = change(copy[at]!);
  return copy;
}

/** A signed data descriptor for `data` compressed to `compressedSize` bytes. */
function descriptorOf(data: Buffer, compressedSize: number): Buffer {
  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(zlibCrc32(data), 4);
  descriptor.writeUInt32LE(compressedSize, 8);
  descriptor.writeUInt32LE(data.length, 12);
  return descriptor;
}

/**
 * libarchive reading a pipe finds an entry's end by its data, not by the central
 * directory: a deflate stream that stops short of the declared compressed size
 * leaves room for a data descriptor and a whole local entry it then extracts, and so
 * does a stored entry with a data descriptor, whose end it finds by looking for one.
 */
function streamingReaderEntries(): RefusedArchive[] {
  const mainPy = plugin[2]!;
  const descriptor = descriptorOf(mainPy.data!, deflateRawSync(mainPy.data!).length);
  const readme = text('Read me.\n');
  const exe = localRecord({ name: 'main.exe', data: text('MZ evil'), method: 0 });
  const endsEarly = /after its compressed data ends/;
  const storedDescriptor = /stored .*data descriptor/;
  return [
    {
      what: 'streaming: a deflate stream that ends before the compressed size, a descriptor and a local entry after it',
      zip: buildZip([{ ...mainPy, dataDescriptor: 'signed', trailing: Buffer.concat([descriptor, exe]) }, plugin[0]!]),
      reason: endsEarly,
    },
    { what: 'streaming: a deflate stream that ends before the compressed size, bytes after it', zip: buildZip([{ ...mainPy, trailing: text('tail') }]), reason: endsEarly },
    {
      what: 'streaming: a stored entry with a data descriptor, a descriptor and a local entry inside its data',
      zip: buildZip([{ name: 'readme.txt', data: Buffer.concat([readme, descriptorOf(readme, readme.length), exe]), method: 0, dataDescriptor: 'signed' }, plugin[0]!]),
      reason: storedDescriptor,
    },
    { what: 'streaming: a stored entry with a data descriptor', zip: buildZip([{ ...plugin[0]!, method: 0, dataDescriptor: 'unsigned' }]), reason: storedDescriptor },
    { what: 'streaming: an empty stored folder with a data descriptor', zip: buildZip([{ name: 'lib/', method: 0, dataDescriptor: 'signed' }]), reason: storedDescriptor },
  ];
}

/**
 * Python, unzip and bsdtar take the last end record signature in the file, the
 * inspector the record whose comment reaches the end of the file: a comment that
 * holds a second archive (and a byte after it) gives two lists of files.
 */
function endRecordsInComments(): RefusedArchive[] {
  const second = buildZip([{ name: 'main.exe', data: text('MZ evil'), method: 0 }, { name: 'plugin.json', data: text('{"id":"evil"}') }]);
  const signature = /comment holds an end of central directory record/;
  const inComment = (bytes: Buffer, zip64 = false) => buildZip([plugin[0]!, { name: 'readme.txt', data: text('Read me.') }], { comment: bytes, zip64 });
  return [
    { what: 'end record in the comment: a second archive, and a byte after it', zip: inComment(Buffer.concat([second, text('x')])), reason: signature },
    { what: 'end record in the comment: a second archive, ZIP64 outside', zip: inComment(Buffer.concat([second, text('x')]), true), reason: signature },
    { what: 'end record in the comment: the signature alone', zip: inComment(text('made by a test PK\u0005\u0006')), reason: signature },
    { what: 'end record in the comment: a ZIP64 end record signature', zip: inComment(text('PK\u0006\u0006 and more')), reason: signature },
    { what: 'end record in the comment: a ZIP64 locator signature', zip: inComment(text('PK\u0006\u0007 and more')), reason: signature },
    // A comment of 0x4b50 bytes ("PK") that starts with 5, 6: the signature begins in the record itself.
    { what: 'end record in the comment: a signature made of the comment length and the comment’s first bytes', zip: inComment(Buffer.concat([Buffer.from([5, 6]), Buffer.alloc(0x4b50 - 2, 0x20)])), reason: signature },
  ];
}

/**
 * A ZIP64 archive has two end records: readers that disagree on which one to trust,
 * or on where the ZIP64 one is (Python before the CVE-2025-8291 fix reads the 56
 * bytes before the locator whatever it says), read two central directories.
 */
function zip64TwoWays(): RefusedArchive[] {
  // A second ZIP64 end record just before the locator, pointing at 1 entry at the file's start.
  const other = Buffer.alloc(56);
  other.writeUInt32LE(0x06064b50, 0);
  other.writeBigUInt64LE(44n, 4);
  other.writeBigUInt64LE(1n, 24);
  other.writeBigUInt64LE(1n, 32);
  other.writeBigUInt64LE(60n, 40);
  const notBefore = /ZIP64 end record is not directly before its locator/;
  const disagree = /32-bit end record says otherwise than its ZIP64 end record/;
  const zip64 = (spec: Parameters<typeof buildZip>[1]) => buildZip(plugin, { zip64: true, ...spec });
  return [
    { what: 'ZIP64: a second ZIP64 end record between the one the locator points at and the locator', zip: zip64({ zip64Gap: other }), reason: notBefore },
    { what: 'ZIP64: bytes between the ZIP64 end record and its locator', zip: zip64({ zip64Gap: text('hidden') }), reason: notBefore },
    { what: 'ZIP64: a 32-bit central directory offset neither saturated nor the ZIP64 one', zip: zip64({ end32: { centralOffset: 0 } }), reason: disagree },
    { what: 'ZIP64: a 32-bit central directory size neither saturated nor the ZIP64 one', zip: zip64({ end32: { centralSize: 46 } }), reason: disagree },
    { what: 'ZIP64: a 32-bit entry count neither saturated nor the ZIP64 one', zip: zip64({ end32: { diskEntryCount: 1, entryCount: 1 } }), reason: disagree },
    { what: 'ZIP64: a locator on another disk', zip: zip64({ locatorDisks: [1, 2] }), reason: /split/ },
    { what: 'end record: entries on this disk other than the total', zip: withByte(honest, honest.length - 14, () => 3), reason: /damaged/ },
  ];
}

/** Python and unzip read a name without the UTF-8 flag (bit 11) as CP437, not as the UTF-8 it may be. */
function namesDecodedOtherwise(): RefusedArchive[] {
  const unflagged = /not ASCII and not marked as UTF-8/;
  return [
    { what: 'names: non-ASCII without the UTF-8 flag (À.txt and Ç.txt, ├Ç.txt and ├ç.txt in CP437)', zip: buildZip([{ name: 'À.txt', data: text('a'), flags: 0 }, { name: 'Ç.txt', data: text('b'), flags: 0 }]), reason: unflagged },
    { what: 'names: a UTF-8 name without the flag', zip: buildZip([{ name: 'é.txt', data: text('x'), flags: 0 }]), reason: unflagged },
    {
      what: 'names: non-ASCII without the flag, a Unicode Path field repeating it (Python reads neither)',
      zip: buildZip([{ name: 'é.txt', data: text('x'), flags: 0, localExtra: unicodePath('é.txt', 'é.txt'), centralExtra: unicodePath('é.txt', 'é.txt') }]),
      reason: unflagged,
    },
    { what: 'names: the UTF-8 flag in the central directory only', zip: withByte(buildZip([{ name: 'é.txt', data: text('x') }]), 7, (flags) => flags & ~(utf8Flag >> 8)), reason: /differs between its local header/ },
  ];
}

/** Names shown otherwise than they are: reordered by bidirectional controls, or twins by an invisible character. */
function invisibleNames(): RefusedArchive[] {
  const bidi = /bidirectional control/;
  const invisible = /invisible or space-like character/;
  const named = (name: string) => buildZip([plugin[0]!, { name, data: text('MZ') }]);
  const cases: Array<[string, string, RegExp]> = [
    ['evil\\u202etxt.exe (RIGHT-TO-LEFT OVERRIDE, shown as evilexe.txt)', 'evil\u202etxt.exe', bidi],
    ['a bidi embedding in a folder', 'a\u202ab/c.txt', bidi],
    ['LEFT-TO-RIGHT ISOLATE', 'a\u2066b.txt', bidi],
    ['POP DIRECTIONAL ISOLATE', 'a\u2069b.txt', bidi],
    ['RIGHT-TO-LEFT MARK', 'a\u200fb.txt', bidi],
    ['LEFT-TO-RIGHT MARK', 'a\u200eb.txt', bidi],
    ['ARABIC LETTER MARK', 'a\u061cb.txt', bidi],
    ['main\\u200b.exe beside main.exe (ZERO WIDTH SPACE)', 'main\u200b.exe', invisible],
    ['ZERO WIDTH JOINER in a folder', 'li\u200db/x.txt', invisible],
    ['ZERO WIDTH NON-JOINER', 'a\u200cb.txt', invisible],
    ['WORD JOINER', 'a\u2060b.txt', invisible],
    ['INVISIBLE TIMES', 'a\u2062b.txt', invisible],
    ['a byte order mark', '\ufeffplugin.json', invisible],
    ['SOFT HYPHEN', 'main\u00ad.exe', invisible],
    ['MONGOLIAN VOWEL SEPARATOR', 'a\u180eb.txt', invisible],
    ['a tag character', 'a\u{e0041}b.txt', invisible],
    ['a variation selector', 'main\ufe0f.exe', invisible],
    ['COMBINING GRAPHEME JOINER', 'a\u034fb.txt', invisible],
    ['HANGUL FILLER', 'a\u3164b.txt', invisible],
    ['NO-BREAK SPACE, shown as a space', 'a\u00a0b.txt', invisible],
    ['IDEOGRAPHIC SPACE', 'a\u3000b.txt', invisible],
    ['LINE SEPARATOR', 'a\u2028b.txt', invisible],
    ['a private-use character', 'a\ue000b.txt', invisible],
  ];
  return [
    ...cases.map(([what, name, reason]) => ({ what: `names: ${what}`, zip: named(name), reason })),
    { what: 'names: main.exe and main\\u200b.exe side by side', zip: buildZip([{ name: 'main.exe', data: text('a') }, { name: 'main\u200b.exe', data: text('b') }]), reason: invisible },
  ];
}
