// Packages over HTTP: upload (inspected, stored once, nothing kept when refused),
// download with Range so that a launcher can resume, removal (410).
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { listFiles, rawRequest } from '../../fixtures/images/client.js';
import { startTestImghost, type TestServer } from '../../helpers/servers.js';
import { refusedArchives } from '../../helpers/zip-corpus.js';
import { buildZip } from '../../helpers/zip-writer.js';

const TOKEN = 'package-upload-token';
const SMALL_MAX = 20_000;
const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const zipHeaders = { 'Content-Type': 'application/zip' };

const plugin = buildZip([
  { name: 'plugin.json', data: Buffer.from('{"id":"demo"}') },
  { name: 'lib/main.py', data: Buffer.from('print(1)\n'.repeat(10)) },
  { name: 'blob.bin', data: randomBytes(40_000), method: 0 },
]);

let open: TestServer;
let guarded: TestServer;
let small: TestServer;

const Packages = suite('packages');

Packages.before(async () => {
  open = await startTestImghost();
  guarded = await startTestImghost({ IMGHOST_UPLOAD_TOKEN: TOKEN });
  small = await startTestImghost({ PACKAGE_MAX_BYTES: String(SMALL_MAX) });
});

Packages.after(async () => {
  await open?.close();
  await guarded?.close();
  await small?.close();
});

const post = (server: TestServer, body: Buffer, headers: Record<string, string> = zipHeaders, query = '') =>
  rawRequest(server.url, `/api/packages${query}`, { method: 'POST', headers, body });
const json = (answer: { body: Buffer }) => JSON.parse(answer.body.toString('utf8'));
const kept = async (server: TestServer) => (await listFiles(server.config.packagesDir)).filter((name) => !name.startsWith('.tmp'));
const temps = async (server: TestServer) => (await listFiles(server.config.packagesDir)).filter((name) => name.startsWith('.tmp'));

Packages('an upload answers 201 with the hash, size, URL and entries', async () => {
  const answer = await post(open, plugin, zipHeaders, '?name=demo-plugin-1.0.0');
  assert.is(answer.status, 201);
  const body = json(answer);
  assert.is(body.success, true);
  assert.is(body.data.sha256, sha256Of(plugin));
  assert.is(body.data.size, plugin.length);
  assert.is(body.data.url, `/pkg/${sha256Of(plugin)}/demo-plugin-1.0.0.zip`);
  assert.is(body.data.entryCount, 3);
  assert.equal(body.data.entries.map((e: { name: string }) => e.name), ['plugin.json', 'lib/main.py', 'blob.bin']);
  assert.ok(body.data.entries.every((e: { size: number; crc32: number }) => Number.isInteger(e.size) && Number.isInteger(e.crc32)));
});

Packages('an upload answers its manifest, findings and files (issue 31), and a package with findings or no manifest is still stored', async () => {
  const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), randomBytes(500)]);
  const token = `npm_${'Ab1Cd2Ef3Gh4'.repeat(3)}`;
  const wrapped = buildZip([
    { name: 'Demo/', method: 0 },
    { name: 'Demo/plugin.json', data: Buffer.from('{"id":"demo","name":"Demo","version":"1.0.0"}') },
    { name: 'Demo/.npmrc', data: Buffer.from(`//registry.npmjs.org/:_authToken=${token}\n`) },
    { name: 'Demo/main', data: elf, method: 0 },
  ]);
  const answer = await post(open, wrapped);
  assert.is(answer.status, 201);
  const { data } = json(answer);
  assert.equal(data.manifest, { path: 'Demo/plugin.json', json: { id: 'demo', name: 'Demo', version: '1.0.0' } });
  assert.is(data.manifestProblem, null);
  assert.equal(data.findings, [
    { code: 'secret', file: 'Demo/.npmrc', kind: 'npm token' },
    { code: 'native-executable', file: 'Demo/main', format: 'ELF' },
  ]);
  assert.not.ok(answer.body.toString('utf8').includes(token), 'the answer never holds the secret');
  assert.equal(data.files.map((f: { name: string }) => f.name), ['Demo/plugin.json', 'Demo/.npmrc', 'Demo/main']);
  assert.is(data.files[2].sha256, sha256Of(elf));
  assert.ok((await kept(open)).some((name) => name.includes(data.sha256)));

  const bare = json(await post(open, buildZip([{ name: 'main.py', data: Buffer.from('print(1)') }])));
  assert.is(bare.data.manifest, null);
  assert.match(bare.data.manifestProblem, /^no plugin\.json/);
  assert.equal(bare.data.findings, []);
});

Packages('two uploads of the same bytes are stored once', async () => {
  const first = json(await post(open, plugin));
  const second = json(await post(open, plugin, zipHeaders, '?name=other'));
  assert.is(first.data.sha256, second.data.sha256);
  const files = (await kept(open)).filter((name) => name.includes(first.data.sha256));
  assert.equal(files, [`${first.data.sha256.slice(0, 2)}/${first.data.sha256}.zip`]);
  assert.equal(await temps(open), []);
});

Packages('a name is reduced to safe characters', async () => {
  const body = json(await post(open, plugin, zipHeaders, `?name=${encodeURIComponent('../../插件 "x";.zip')}`));
  assert.match(body.data.url, /^\/pkg\/[0-9a-f]{64}\/[A-Za-z0-9][A-Za-z0-9._-]*\.zip$/);
});

// One of each kind of archive that other unzip tools read otherwise (issue 30), with the reason the inspector gives.
const readOtherwise = ['end record in the comment:', 'ZIP64:', 'streaming: a deflate', 'streaming: a stored', 'names: non-ASCII', 'names: evil', 'names: main']
  .map((prefix) => refusedArchives.find((c) => c.what.startsWith(prefix))!);

const refusals: Array<{ what: string; zip: Buffer; reason?: RegExp }> = [
  ...readOtherwise,
  { what: 'a traversal name', zip: buildZip([{ name: '../evil.txt', data: Buffer.from('x') }]) },
  { what: 'a bomb', zip: buildZip([{ name: 'zeros', data: Buffer.alloc(2 * 1024 * 1024) }]) },
  { what: 'a truncated ZIP', zip: plugin.subarray(0, plugin.length - 30) },
  { what: 'not a ZIP', zip: Buffer.from('just text, not a zip file at all') },
  { what: 'an empty body', zip: Buffer.alloc(0) },
];

for (const c of refusals) {
  Packages(`refused with its reason and nothing kept: ${c.what}`, async () => {
    const before = await kept(open);
    const answer = await post(open, c.zip);
    assert.is(answer.status, 400);
    const body = json(answer);
    assert.is(body.success, false);
    assert.is(body.code, 'VALIDATION_FAILED');
    assert.is(body.field, 'file');
    assert.type(body.error, 'string');
    if (c.reason) assert.match(body.error, c.reason);
    assert.equal(await kept(open), before);
    assert.equal(await temps(open), []);
  });
}

Packages('the upload token is required when set', async () => {
  assert.is((await post(guarded, plugin)).status, 401);
  assert.is((await post(guarded, plugin, { ...zipHeaders, Authorization: 'Bearer wrong' })).status, 401);
  assert.is((await post(guarded, plugin, { ...zipHeaders, Authorization: `Bearer ${TOKEN}` })).status, 201);
});

Packages('a body that is not sent as a ZIP is 415', async () => {
  const answer = await post(open, plugin, { 'Content-Type': 'multipart/form-data; boundary=x' });
  assert.is(answer.status, 415);
  assert.is(json(answer).code, 'UNSUPPORTED_MEDIA_TYPE');
});

Packages('over PACKAGE_MAX_BYTES: refused before reading when declared, and when it grows past it', async () => {
  const big = buildZip([{ name: 'r.bin', data: randomBytes(SMALL_MAX), method: 0 }]);
  assert.is((await post(small, big)).status, 413);
  // Chunked: no Content-Length, so the limit is met while streaming.
  const response = await fetch(`${small.url}/api/packages`, {
    method: 'POST',
    headers: zipHeaders,
    body: Readable.toWeb(Readable.from([big.subarray(0, 10_000), big.subarray(10_000)])) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  assert.is(response.status, 413);
  assert.equal(await temps(small), []);
  assert.equal(await kept(small), []);
});

Packages('GET and HEAD serve the bytes with their headers', async () => {
  const { data } = json(await post(open, plugin, zipHeaders, '?name=demo'));
  const answer = await rawRequest(open.url, data.url);
  assert.is(answer.status, 200);
  assert.ok(answer.body.equals(plugin));
  assert.is(answer.headers['content-type'], 'application/zip');
  assert.is(answer.headers['content-disposition'], 'attachment; filename="demo.zip"');
  assert.is(answer.headers.etag, `"${data.sha256}"`);
  assert.is(answer.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.is(answer.headers['accept-ranges'], 'bytes');
  const head = await rawRequest(open.url, data.url, { method: 'HEAD' });
  assert.is(head.status, 200);
  assert.is(head.headers['content-length'], String(plugin.length));
  assert.is(head.body.length, 0);
  const again = await rawRequest(open.url, data.url, { headers: { 'If-None-Match': `"${data.sha256}"` } });
  assert.is(again.status, 304);
});

Packages('a download cut short resumes byte for byte with Range', async () => {
  const { data } = json(await post(open, plugin));
  const cut = 12_345;
  const first = (await rawRequest(open.url, data.url)).body.subarray(0, cut);
  const rest = await rawRequest(open.url, data.url, { headers: { Range: `bytes=${cut}-`, 'If-Range': `"${data.sha256}"` } });
  assert.is(rest.status, 206);
  assert.is(rest.headers['content-range'], `bytes ${cut}-${plugin.length - 1}/${plugin.length}`);
  assert.is(rest.headers['content-length'], String(plugin.length - cut));
  assert.ok(Buffer.concat([first, rest.body]).equals(plugin));
});

const ranges = [
  { what: 'a middle range', range: 'bytes=10-19', status: 206, slice: [10, 20] },
  { what: 'a suffix range', range: 'bytes=-100', status: 206, slice: [-100] },
  { what: 'an end past the size is cut to it', range: 'bytes=100-99999999', status: 206, slice: [100] },
  { what: 'several ranges: the whole file', range: 'bytes=0-1,5-6', status: 200, slice: [0] },
  { what: 'a malformed range: the whole file', range: 'bytes=abc', status: 200, slice: [0] },
  { what: 'a start past the end', range: 'bytes=99999999-', status: 416, slice: null },
  { what: 'the unit in capitals', range: 'BYTES=0-1', status: 206, slice: [0, 2] },
  { what: 'an end of 17 digits is cut to the size', range: 'bytes=0-12345678901234567', status: 206, slice: [0] },
  { what: 'a start of 40 digits is past the end', range: `bytes=${'9'.repeat(40)}-`, status: 416, slice: null },
  { what: 'a suffix longer than the file: all of it', range: `bytes=-${'9'.repeat(30)}`, status: 206, slice: [0] },
];

for (const c of ranges) {
  Packages(`Range: ${c.what}`, async () => {
    const { data } = json(await post(open, plugin));
    const answer = await rawRequest(open.url, data.url, { headers: { Range: c.range } });
    assert.is(answer.status, c.status);
    if (c.slice) assert.ok(answer.body.equals(plugin.subarray(...(c.slice as [number, number?]))));
    else assert.is(answer.headers['content-range'], `bytes */${plugin.length}`);
  });
}

Packages('If-Range with another validator sends the whole file', async () => {
  const { data } = json(await post(open, plugin));
  const answer = await rawRequest(open.url, data.url, { headers: { Range: 'bytes=10-', 'If-Range': '"stale"' } });
  assert.is(answer.status, 200);
  assert.ok(answer.body.equals(plugin));
});

const badPaths = ['/pkg/abc/x.zip', `/pkg/${'0'.repeat(64)}/x.zip`, `/pkg/${'a'.repeat(64)}/..%2f..%2fetc.zip`, `/pkg/${'a'.repeat(64)}/x.exe`];
Packages('unknown or malformed package paths are 404', async () => {
  for (const path of badPaths) assert.is((await rawRequest(open.url, path)).status, 404, path);
});

Packages('a removed package answers 410, and its bytes cannot be uploaded again', async () => {
  const zip = buildZip([{ name: 'malware.py', data: randomBytes(500) }]);
  const { data } = json(await post(guarded, zip, { ...zipHeaders, Authorization: `Bearer ${TOKEN}` }));
  assert.is((await rawRequest(guarded.url, `/api/packages/${data.sha256}`, { method: 'DELETE' })).status, 401);
  const removed = await rawRequest(guarded.url, `/api/packages/${data.sha256}`, { method: 'DELETE', headers: { Authorization: `Bearer ${TOKEN}` } });
  assert.is(removed.status, 200);
  const gone = await rawRequest(guarded.url, data.url);
  assert.is(gone.status, 410);
  assert.is(json(gone).code, 'GONE');
  const again = await post(guarded, zip, { ...zipHeaders, Authorization: `Bearer ${TOKEN}` });
  assert.is(again.status, 400);
  assert.is(json(again).field, 'file');
  assert.ok(!(await kept(guarded)).some((name) => name.endsWith(`${data.sha256}.zip`)));
});

Packages.run();
