// The ZIP inspector against a corpus this test makes: honest archives pass with
// their entries listed; each hostile or broken one is refused with its reason.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { deflateRawSync, crc32 as zlibCrc32 } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tableCrc32 } from '../../../src/imghost/packages/crc32.js';
import { inspectZip, LISTED_ENTRIES, ZipRefused } from '../../../src/imghost/packages/zip-inspect.js';
import { MAX_ENTRIES } from '../../../src/imghost/packages/zip-rules.js';
import { tempDir } from '../../helpers/servers.js';
import { buildZip, type ZipEntrySpec } from '../../helpers/zip-writer.js';

const dir = tempDir('zip-corpus-');
let counter = 0;
function fileOf(bytes: Buffer): string {
  const path = join(dir, `case-${counter++}.zip`);
  writeFileSync(path, bytes);
  return path;
}

const text = (s: string) => Buffer.from(s, 'utf8');
const plugin: ZipEntrySpec[] = [
  { name: 'plugin.json', data: text('{"id":"demo","version":"1.0.0"}') },
  { name: 'lib/', data: Buffer.alloc(0), method: 0 },
  { name: 'lib/main.py', data: text('print("hello")\n'.repeat(20)) },
  { name: 'assets/icon.bin', data: randomBytes(3000), method: 0 },
];
const honest = buildZip(plugin);

/** An Info-ZIP Unicode Path extra field (0x7075): a version, the CRC-32 of the header's name, a UTF-8 name. */
function unicodePath(headerName: string, name: string, version = 1): Buffer {
  const head = Buffer.alloc(9);
  head.writeUInt16LE(0x7075, 0);
  head.writeUInt16LE(5 + Buffer.byteLength(name), 2);
  head.writeUInt8(version, 4);
  head.writeUInt32LE(zlibCrc32(text(headerName)), 5);
  return Buffer.concat([head, text(name)]);
}
const withDescriptors = (form: 'signed' | 'unsigned') => plugin.map((entry) => ({ ...entry, dataDescriptor: form }));

const accepted: Array<{ what: string; zip: Buffer; count: number }> = [
  { what: 'a plain archive, stored and deflated entries', zip: honest, count: 4 },
  { what: 'ZIP64 records and extra fields', zip: buildZip(plugin, { zip64: true }), count: 4 },
  { what: 'a comment after the end record', zip: buildZip(plugin, { comment: 'made by a test PK\u0005\u0006' }), count: 4 },
  { what: 'UTF-8 names (Chinese), flagged', zip: buildZip([{ name: '说明/读我.txt', data: text('你好') }]), count: 1 },
  { what: 'a UTF-8 name without the flag', zip: buildZip([{ name: 'é.txt', data: text('x'), flags: 0 }]), count: 1 },
  { what: 'names that only look like Windows devices or dots', zip: buildZip([{ name: 'console.txt', data: text('x') }, { name: 'nullable/.config', data: text('y') }, { name: 'v1.2/a b.txt', data: text('z') }]), count: 3 },
  // Python's zipfile writing to a stream, Java's jar and zip to a pipe: CRC and sizes come after the data.
  { what: 'data descriptors with their signature (Python’s zipfile on a stream)', zip: buildZip(withDescriptors('signed')), count: 4 },
  { what: 'data descriptors without their signature', zip: buildZip(withDescriptors('unsigned')), count: 4 },
  { what: 'ZIP64 data descriptors (Python’s zipfile, force_zip64, on a stream)', zip: buildZip(withDescriptors('signed'), { zip64: true }), count: 4 },
  {
    what: 'a Unicode Path field that repeats the name (Info-ZIP’s zip)',
    zip: buildZip([{ name: 'é.txt', data: text('x'), flags: 0, localExtra: unicodePath('é.txt', 'é.txt'), centralExtra: unicodePath('é.txt', 'é.txt') }]),
    count: 1,
  },
];

for (const c of accepted) {
  test(`accepted: ${c.what}`, async () => {
    const result = await inspectZip(fileOf(c.zip));
    assert.is(result.entryCount, c.count);
    assert.is(result.entries.length, c.count);
    for (const entry of result.entries) {
      assert.type(entry.name, 'string');
      assert.ok(Number.isInteger(entry.size) && entry.size >= 0);
      assert.ok(Number.isInteger(entry.crc32) && entry.crc32 >= 0);
    }
  });
}

test('entries keep their names, sizes and CRCs in central directory order', async () => {
  const result = await inspectZip(fileOf(honest));
  assert.equal(result.entries.map((e) => e.name), ['plugin.json', 'lib/', 'lib/main.py', 'assets/icon.bin']);
  assert.is(result.entries[2]!.size, 300);
  assert.is(result.entries[2]!.crc32, zlibCrc32(text('print("hello")\n'.repeat(20))));
  assert.is(result.totalSize, result.entries.reduce((sum, e) => sum + e.size, 0));
});

test(`at most ${LISTED_ENTRIES} entries are listed; the count is whole`, async () => {
  const many = Array.from({ length: 1500 }, (_, i) => ({ name: `f/${i}.txt`, data: text(String(i)), method: 0 }));
  const result = await inspectZip(fileOf(buildZip(many)));
  assert.is(result.entryCount, 1500);
  assert.is(result.entries.length, LISTED_ENTRIES);
});

const deflated = (size: number) => Buffer.alloc(size, 0x61);
const unixMode = (mode: number) => mode << 16;
const stub = Buffer.concat([text('MZ'), randomBytes(510)]);
const truncated = honest.subarray(0, honest.length - 10);

const refused: Array<{ what: string; zip: Buffer; reason: RegExp }> = [
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
];

/** An entry's local header and data alone, as a streaming reader finds them: what buildZip writes before its central directory. */
function localRecord(entry: ZipEntrySpec): Buffer {
  const zip = buildZip([entry]);
  return zip.subarray(0, zip.readUInt32LE(zip.length - 6));
}

/** Streaming readers (Java's ZipInputStream, unzip libraries) walk the local headers and extract an entry the central directory does not list. */
function hiddenEntries(): typeof refused {
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
function secondNames(): typeof refused {
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
function linksFromAnyHost(): typeof refused {
  const link = { name: 'link', data: text('../../x'), method: 0, externalAttributes: unixMode(0o120777) };
  const hosts = [['MS-DOS', 0], ['Atari', 5], ['BeOS', 16], ['Darwin', 19]] as const;
  return [
    ...hosts.map(([host, id]) => ({ what: `link: a symbolic link made on ${host}`, zip: buildZip([{ ...link, madeBy: (id << 8) | 30 }]), reason: /symbolic link/ })),
    { what: 'link: a Windows reparse point (an NTFS link)', zip: buildZip([{ ...link, madeBy: 0x0a1e, externalAttributes: 0x400 }]), reason: /symbolic link/ },
  ];
}

/** A streaming reader trusts the local header's CRC and sizes; they must be the central directory's. */
function localHeaderLies(): typeof refused {
  const a = { name: 'a.txt', data: text('0123456789'), method: 0 };
  const inconsistent = /differs between its local header and the central directory/;
  return [
    { what: 'local header: another CRC', zip: buildZip([{ ...a, localCrc: 1234 }]), reason: inconsistent },
    { what: 'local header: another size', zip: buildZip([{ ...a, localSize: 20, localCompressedSize: 20 }, plugin[0]!]), reason: inconsistent },
    { what: 'local header: another compressed size', zip: buildZip([{ ...plugin[2]!, localCompressedSize: 5 }]), reason: inconsistent },
    { what: 'local header: other ZIP64 sizes', zip: buildZip([{ ...a, localSize: 20, localCompressedSize: 20 }], { zip64: true }), reason: inconsistent },
    { what: 'local header: another CRC beside a data descriptor', zip: buildZip([{ ...a, dataDescriptor: 'signed', localCrc: 1234 }]), reason: inconsistent },
  ];
}

/**
 * libarchive reading a pipe finds an entry's end by its data, not by the central
 * directory: a deflate stream that stops short of the declared compressed size
 * leaves room for a data descriptor and a whole local entry it then extracts.
 */
function streamingReaderEntries(): typeof refused {
  const mainPy = plugin[2]!;
  const deflatedMain = deflateRawSync(mainPy.data!);
  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(zlibCrc32(mainPy.data!), 4);
  descriptor.writeUInt32LE(deflatedMain.length, 8);
  descriptor.writeUInt32LE(mainPy.data!.length, 12);
  const exe = localRecord({ name: 'main.exe', data: text('MZ evil'), method: 0 });
  const endsEarly = /after its compressed data ends/;
  return [
    {
      what: 'streaming: a deflate stream that ends before the compressed size, a descriptor and a local entry after it',
      zip: buildZip([{ ...mainPy, dataDescriptor: 'signed', trailing: Buffer.concat([descriptor, exe]) }, plugin[0]!]),
      reason: endsEarly,
    },
    { what: 'streaming: a deflate stream that ends before the compressed size, bytes after it', zip: buildZip([{ ...mainPy, trailing: text('tail') }]), reason: endsEarly },
  ];
}

for (const c of refused) {
  test(`refused: ${c.what}`, async () => {
    try {
      await inspectZip(fileOf(c.zip));
      assert.unreachable('accepted');
    } catch (error) {
      assert.instance(error, ZipRefused, String(error));
      assert.match((error as ZipRefused).reason, c.reason);
    }
  });
}

test('refusals are refused byte by byte too: every cut of an honest archive is refused or read whole, never thrown otherwise', async () => {
  for (let cut = 0; cut < honest.length; cut += 7) {
    try {
      await inspectZip(fileOf(honest.subarray(0, cut)));
      assert.unreachable(`a ZIP cut at ${cut} was accepted`);
    } catch (error) {
      assert.instance(error, ZipRefused, `cut at ${cut}: ${String(error)}`);
    }
  }
});

test('the table CRC-32 equals zlib’s', () => {
  for (const size of [0, 1, 7, 64, 1000]) {
    const data = randomBytes(size);
    assert.is(tableCrc32(data, 0), zlibCrc32(data));
    assert.is(tableCrc32(data.subarray(size >> 1), tableCrc32(data.subarray(0, size >> 1), 0)), zlibCrc32(data));
  }
});

test.run();
