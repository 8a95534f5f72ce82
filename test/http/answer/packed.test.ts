// A prepared answer packed small (http/answer/prepared.ts: packAnswer) is sent as the answer it was
// packed from would be: gzip to a client that takes it, the same JSON inflated to one
// that does not, with the answer's own head.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gunzipSync } from 'node:zlib';
import { packAnswer, prepareJson, sendPrepared, unpackAnswer } from '../../../src/http/answer/index.js';
import { listen, type RunningServer } from '../../../src/http/server.js';
import { testApp } from '../../helpers/test-app.js';

const LIST = { success: true, plugins: Array.from({ length: 200 }, (_, n) => ({ id: `plugin-${n}`, name: `插件 ${n}`, installs: n * 7 })) };
const prepared = prepareJson(LIST, { etag: false, cacheControl: 'no-store', headers: { 'Access-Control-Allow-Origin': '*' } });
const packed = packAnswer(prepared);
const small = packAnswer(prepareJson({ success: true }, { etag: false, cacheControl: 'no-store' }));

let server: RunningServer;
test.before(async () => {
  const handler = testApp({
    routes: [
      { method: 'GET', path: '/packed', handler: (ctx) => sendPrepared(ctx, unpackAnswer(packed)) },
      { method: 'GET', path: '/small', handler: (ctx) => sendPrepared(ctx, unpackAnswer(small, [...small.headers, 'Cache-Status', 'test'])) },
    ],
  });
  server = await listen(handler, '127.0.0.1', 0);
});
test.after(async () => {
  await server.close(500);
});

const ask = async (path: string, acceptEncoding?: string) => {
  const res = await fetch(`${server.url}${path}`, { headers: acceptEncoding === undefined ? {} : { 'Accept-Encoding': acceptEncoding } });
  return res;
};

test('packed: kept as its gzip bytes alone, a small part of the JSON', () => {
  assert.ok(packed.gzipped);
  assert.ok(packed.bytes.length * 5 < prepared.body.length, `${packed.bytes.length} of ${prepared.body.length}`);
  assert.equal(JSON.parse(gunzipSync(packed.bytes).toString()), LIST);
});

// fetch (undici) inflates what it is sent and says which coding came.
const cases = [
  { what: 'a launcher (gzip, deflate)', accept: 'gzip, deflate', coding: 'gzip' },
  { what: 'a browser preferring br', accept: 'gzip, deflate, br, zstd', coding: 'gzip' },
  { what: 'a client taking br only', accept: 'br', coding: null },
  { what: 'a client taking nothing', accept: 'identity', coding: null },
];
for (const c of cases) {
  test(`packed: ${c.what} gets the same JSON, coding ${c.coding}`, async () => {
    const res = await ask('/packed', c.accept);
    assert.is(res.status, 200);
    assert.is(res.headers.get('content-encoding'), c.coding);
    assert.is(res.headers.get('cache-control'), 'no-store');
    assert.is(res.headers.get('access-control-allow-origin'), '*');
    assert.is(res.headers.get('vary'), 'Accept-Encoding');
    assert.equal(await res.json(), LIST);
  });
}

test('packed: a detail too small to compress on the wire (2 KB) is kept gzipped all the same, and says it varies', async () => {
  const detail = prepareJson({ success: true, description: '这是一个插件。'.repeat(100) }, { etag: false, cacheControl: 'no-store' });
  assert.is(detail.compressible, false);
  const kept = packAnswer(detail);
  assert.ok(kept.gzipped && kept.bytes.length * 2 < detail.body.length, `${kept.bytes.length} of ${detail.body.length}`);
  assert.equal([...kept.headers], ['Cache-Control', 'no-store', 'Vary', 'Accept-Encoding']);
  assert.equal(JSON.parse(unpackAnswer(kept).body.toString()), JSON.parse(detail.body.toString()));
});

test('packed: an answer of a few bytes is kept and sent as it is, with the head given', async () => {
  assert.is(small.gzipped, false);
  const res = await ask('/small', 'gzip');
  assert.is(res.headers.get('content-encoding'), null);
  assert.is(res.headers.get('cache-status'), 'test');
  assert.equal(await res.json(), { success: true });
});

test.run();
