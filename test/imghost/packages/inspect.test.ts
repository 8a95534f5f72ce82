// POST /api/packages/inspect (issue 33): the upload's token, limits, inspection
// and report, and nothing kept, whatever the outcome.
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listFiles, rawRequest } from '../../fixtures/images/client.js';
import { startTestImghost, type TestServer } from '../../helpers/servers.js';
import { buildZip } from '../../helpers/zip-writer.js';

const TOKEN = 'inspect-token';
const MAX = 20_000;
const zipHeaders = { 'Content-Type': 'application/zip', Authorization: `Bearer ${TOKEN}` };
const plugin = buildZip([
  { name: 'plugin.json', data: Buffer.from('{"id":"demo","name":"Demo"}') },
  { name: 'main.py', data: Buffer.from('print(1)\n') },
]);

let host: TestServer;
test.before(async () => {
  host = await startTestImghost({ IMGHOST_UPLOAD_TOKEN: TOKEN, PACKAGE_MAX_BYTES: String(MAX) });
});
test.after(async () => {
  await host.close();
});

const inspect = (body: Buffer, headers: Record<string, string> = zipHeaders) => rawRequest(host.url, '/api/packages/inspect', { method: 'POST', headers, body });
const json = (answer: { body: Buffer }) => JSON.parse(answer.body.toString('utf8'));

test('an acceptable package answers 200 with the upload\'s report and no url; nothing is kept', async () => {
  const answer = await inspect(plugin);
  assert.is(answer.status, 200);
  const { data } = json(answer);
  assert.is(data.sha256, createHash('sha256').update(plugin).digest('hex'));
  assert.is(data.size, plugin.length);
  assert.is(data.entryCount, 2);
  assert.is(data.url, undefined);
  assert.equal(data.manifest, { path: 'plugin.json', json: { id: 'demo', name: 'Demo' } });
  assert.equal(data.files.map((file: { name: string }) => file.name), ['plugin.json', 'main.py']);
  assert.equal(await listFiles(host.config.packagesDir), []);
});

test('what an upload refuses, an inspection refuses the same way, and keeps nothing either', async () => {
  const cases = [
    { what: 'not a ZIP', body: Buffer.from('<html></html>'), headers: zipHeaders, status: 400, code: 'VALIDATION_FAILED' },
    { what: 'empty', body: Buffer.alloc(0), headers: zipHeaders, status: 400, code: 'VALIDATION_FAILED' },
    { what: 'over PACKAGE_MAX_BYTES', body: Buffer.alloc(MAX + 1), headers: zipHeaders, status: 413, code: 'PAYLOAD_TOO_LARGE' },
    { what: 'no token', body: plugin, headers: { 'Content-Type': 'application/zip' }, status: 401, code: 'UNAUTHORIZED' },
    { what: 'not sent as a ZIP', body: plugin, headers: { ...zipHeaders, 'Content-Type': 'text/plain' }, status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  ];
  for (const { what, body, headers, status, code } of cases) {
    const answer = await inspect(body, headers);
    assert.is(answer.status, status, what);
    assert.is(json(answer).code, code, what);
  }
  assert.equal(await listFiles(host.config.packagesDir), []);
});

test.run();
