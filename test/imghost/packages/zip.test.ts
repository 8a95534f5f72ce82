// The ZIP inspector against its corpus (test/helpers/zip-corpus.ts): honest archives
// pass with their entries listed; each hostile or broken one is refused with its reason.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tableCrc32 } from '../../../src/services/imghost/packages/crc32.js';
import { inspectZip, LISTED_ENTRIES, ZipRefused } from '../../../src/services/imghost/packages/zip-inspect.js';
import { tempDir } from '../../helpers/servers.js';
import { acceptedArchives, honest, refusedArchives, text } from '../../helpers/zip-corpus.js';

const dir = tempDir('zip-corpus-');
let counter = 0;
function fileOf(bytes: Buffer): string {
  const path = join(dir, `case-${counter++}.zip`);
  writeFileSync(path, bytes);
  return path;
}

for (const c of acceptedArchives) {
  test(`accepted: ${c.what}`, async () => {
    const result = await inspectZip(fileOf(c.zip));
    assert.is(result.entryCount, c.count);
    assert.is(result.entries.length, Math.min(c.count, LISTED_ENTRIES));
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

for (const c of refusedArchives) {
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
