// What the inspector reports of a package's contents (issue 31): its manifest,
// placed every way the launcher reads one or refuses it, its findings, and every
// file's SHA-256, from archives the ZIP writer makes.
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_MANIFEST_BYTES } from '../../../src/services/imghost/packages/manifest-read.js';
import { inspectZip } from '../../../src/services/imghost/packages/zip-inspect.js';
import { tempDir } from '../../helpers/servers.js';
import { buildZip, type ZipEntrySpec } from '../../helpers/zip-writer.js';
import { secretSamples } from '../../fixtures/secret-corpus.js';

const dir = tempDir('zip-contents-');
let counter = 0;
const inspect = (entries: ZipEntrySpec[], zip64 = false) => {
  const path = join(dir, `case-${counter++}.zip`);
  writeFileSync(path, buildZip(entries, { zip64 }));
  return inspectZip(path).then((result) => result.contents);
};
const text = (s: string) => Buffer.from(s, 'utf8');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const manifest = { id: 'minimap', name: 'Minimap', version: '1.2.0', permissions: ['ui.home'] };
const manifestBytes = text(JSON.stringify(manifest));

const placements: Array<{ what: string; entries: ZipEntrySpec[]; path: string }> = [
  { what: 'plugin.json at the root, deflated', entries: [{ name: 'plugin.json', data: manifestBytes }, { name: 'main.py', data: text('print(1)') }], path: 'plugin.json' },
  { what: 'plugin.json at the root, stored', entries: [{ name: 'main.py', data: text('x') }, { name: 'plugin.json', data: manifestBytes, method: 0 }], path: 'plugin.json' },
  { what: 'cwplugin.json at the root', entries: [{ name: 'cwplugin.json', data: manifestBytes }], path: 'cwplugin.json' },
  {
    what: 'in the only folder, with its folder entry',
    entries: [{ name: 'Minimap/', method: 0 }, { name: 'Minimap/plugin.json', data: manifestBytes }, { name: 'Minimap/main.py', data: text('x') }],
    path: 'Minimap/plugin.json',
  },
  { what: 'in the only folder, a README beside it', entries: [{ name: 'README.md', data: text('# hi') }, { name: 'Minimap/cwplugin.json', data: manifestBytes }], path: 'Minimap/cwplugin.json' },
  { what: 'written after its data (a data descriptor)', entries: [{ name: 'plugin.json', data: manifestBytes, dataDescriptor: 'signed' }], path: 'plugin.json' },
];

for (const row of placements) {
  test(`manifest: ${row.what}`, async () => {
    const contents = await inspect(row.entries);
    assert.equal(contents.manifest, { path: row.path, json: manifest });
    assert.is(contents.manifestProblem, null);
  });
}

test('manifest: read from a ZIP64 archive', async () => {
  const contents = await inspect([{ name: 'plugin.json', data: manifestBytes }], true);
  assert.equal(contents.manifest, { path: 'plugin.json', json: manifest });
});

const problems: Array<{ what: string; entries: ZipEntrySpec[]; problem: RegExp }> = [
  { what: 'none', entries: [{ name: 'main.py', data: text('x') }], problem: /^no plugin\.json/ },
  { what: 'two names at the root', entries: [{ name: 'plugin.json', data: manifestBytes }, { name: 'cwplugin.json', data: manifestBytes }], problem: /^two manifests/ },
  { what: 'two levels', entries: [{ name: 'plugin.json', data: manifestBytes }, { name: 'Minimap/plugin.json', data: manifestBytes }], problem: /^manifests at two levels/ },
  { what: 'in one of two folders', entries: [{ name: 'a/plugin.json', data: manifestBytes }, { name: 'b/x.py', data: text('x') }], problem: /root holds 2 folders/ },
  { what: 'larger than 64 KiB', entries: [{ name: 'plugin.json', data: text(`{"pad":"${'x'.repeat(MAX_MANIFEST_BYTES)}"}`), method: 0 }], problem: /larger than 64 KiB/ },
  { what: 'a BOM', entries: [{ name: 'plugin.json', data: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), manifestBytes]) }], problem: /byte order mark/ },
  { what: 'not UTF-8', entries: [{ name: 'plugin.json', data: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) }], problem: /not UTF-8/ },
  { what: 'not JSON', entries: [{ name: 'plugin.json', data: text('id = "minimap"') }], problem: /not valid JSON/ },
  { what: 'not an object', entries: [{ name: 'plugin.json', data: text('["minimap"]') }], problem: /not a JSON object/ },
  { what: 'an empty file', entries: [{ name: 'plugin.json', method: 0 }], problem: /not valid JSON/ },
];

for (const row of problems) {
  test(`manifest problem: ${row.what}`, async () => {
    const contents = await inspect(row.entries);
    assert.is(contents.manifest, null);
    assert.match(contents.manifestProblem ?? '', row.problem);
  });
}

test('files: every file entry in central directory order with the SHA-256 of its bytes, folders left out, not capped', async () => {
  const many = Array.from({ length: 1200 }, (_, i) => ({ name: `data/${i}.txt`, data: text(`file ${i}\n`), method: i % 2 === 0 ? 0 : 8 }));
  const blob = randomBytes(50_000);
  const entries: ZipEntrySpec[] = [{ name: 'plugin.json', data: manifestBytes }, { name: 'data/', method: 0 }, { name: 'empty.txt', method: 0 }, { name: 'blob.bin', data: blob, method: 0 }, ...many];
  const contents = await inspect(entries);
  assert.is(contents.files.length, entries.length - 1);
  assert.equal(contents.files.slice(0, 3), [
    { name: 'plugin.json', sha256: sha256(manifestBytes) },
    { name: 'empty.txt', sha256: sha256(Buffer.alloc(0)) },
    { name: 'blob.bin', sha256: sha256(blob) },
  ]);
  assert.equal(contents.files.at(-1), { name: 'data/1199.txt', sha256: sha256(text('file 1199\n')) });
  assert.equal(contents.findings, []);
});

const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), randomBytes(2000)]);
const pe = (() => {
  const head = Buffer.alloc(1024);
  head.write('MZ', 0, 'latin1');
  head.writeUInt32LE(0x80, 0x3c);
  head.write('PE\u0000\u0000', 0x80, 'latin1');
  return Buffer.concat([head, randomBytes(3000)]);
})();

test('findings: native programs by their first bytes, whatever their names, and credentials in text, in archive order', async () => {
  const [github, , , , , , gitlab] = secretSamples();
  const pem = secretSamples().find((sample) => sample.kind === 'PEM private key')!;
  const contents = await inspect([
    { name: 'plugin.json', data: manifestBytes },
    { name: 'bin/main', data: elf, method: 0 },
    { name: 'config/.env', data: text(`${gitlab!.text}\n${github!.text}\n`) },
    { name: 'helper.dat', data: pe },
    { name: 'keys/server.pem', data: text(pem.text), dataDescriptor: 'unsigned' },
    { name: 'Mac/plugin', data: Buffer.concat([Buffer.from([0xcf, 0xfa, 0xed, 0xfe]), randomBytes(500)]), method: 0 },
  ]);
  assert.equal(contents.findings, [
    { code: 'native-executable', file: 'bin/main', format: 'ELF' },
    { code: 'secret', file: 'config/.env', kind: 'GitHub token' },
    { code: 'secret', file: 'config/.env', kind: 'GitLab token' },
    { code: 'native-executable', file: 'helper.dat', format: 'PE' },
    { code: 'secret', file: 'keys/server.pem', kind: 'PEM private key' },
    { code: 'native-executable', file: 'Mac/plugin', format: 'Mach-O' },
  ]);
  assert.ok(!JSON.stringify(contents.findings).includes(github!.text.slice(13, 40)), 'no finding holds the secret');
});

test('findings: a credential in the manifest itself is found too', async () => {
  const token = secretSamples()[0]!.text.trim().split('=')[1]!;
  const contents = await inspect([{ name: 'plugin.json', data: text(JSON.stringify({ ...manifest, token })) }]);
  assert.equal(contents.findings, [{ code: 'secret', file: 'plugin.json', kind: 'GitHub token' }]);
  assert.is(contents.manifest?.path, 'plugin.json');
});

test('findings: a credential deflated across many chunks is found, one in a binary file is not', async () => {
  const secret = secretSamples().find((sample) => sample.kind === 'npm token')!.text;
  // Lines that differ, so that deflate stays under the 100:1 a bomb is refused at.
  const prose = Array.from({ length: 4000 }, (_, i) => `line ${i * 7919 % 10007} of a long readme\n`).join('');
  const contents = await inspect([
    { name: 'README.md', data: text(prose + secret + prose) },
    { name: 'icon.png', data: Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), text(secret), randomBytes(100)]), method: 0 },
  ]);
  assert.equal(contents.findings, [{ code: 'secret', file: 'README.md', kind: 'npm token' }]);
});

test.run();
