import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestImghost, type TestServer } from '../../helpers/servers.js';
import { rawRequest, upload } from '../../fixtures/images/client.js';
import { makeJpeg, makePng } from '../../fixtures/images/generate.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';

let server: TestServer;
let png: Buffer;
let data: { url: string; webpUrl: string; md5: string; timestamp: number };

const Serve = suite('GET /img/:timestamp/:file');

Serve.before(async () => {
  server = await startTestImghost();
  png = await makePng(100);
  const answer = await upload(server.url, png, 'a.png');
  assert.is(answer.status, 200);
  data = answer.body.data;
});

Serve.after(async () => {
  await server?.close();
});

Serve('the original streams with its type, length, strong ETag and immutable caching', async () => {
  const res = await fetch(server.url + data.url);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'image/png');
  assert.is(res.headers.get('content-length'), String(png.length));
  assert.is(res.headers.get('cache-control'), IMMUTABLE);
  const etag = res.headers.get('etag') ?? '';
  assert.match(etag, /^"[^"]*"$/);
  assert.ok(etag.includes(data.md5), 'ETag is md5-based');
  assert.ok(Buffer.from(await res.arrayBuffer()).equals(png));
});

Serve('the timestamp does not select the file: any digits serve the same image', async () => {
  for (const timestamp of ['1', '0', '9999999999999999', String(data.timestamp + 1)]) {
    const res = await fetch(`${server.url}/img/${timestamp}/${data.md5}`);
    assert.is(res.status, 200, timestamp);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(png));
  }
});

Serve('If-None-Match with the ETag gives 304 without a body', async () => {
  const etag = (await fetch(server.url + data.url)).headers.get('etag')!;
  const rows = [
    { what: 'the exact tag', header: etag },
    { what: 'a list containing it', header: `"nope", ${etag}` },
    { what: 'its weak form', header: `W/${etag}` },
    { what: '*', header: '*' },
  ];
  for (const row of rows) {
    const answer = await rawRequest(server.url, data.url, { headers: { 'If-None-Match': row.header } });
    assert.is(answer.status, 304, row.what);
    assert.is(answer.body.length, 0, row.what);
    assert.is(answer.headers.etag, etag, row.what);
    assert.is(answer.headers['cache-control'], IMMUTABLE, row.what);
  }
  const other = await rawRequest(server.url, data.url, { headers: { 'If-None-Match': '"something-else"' } });
  assert.is(other.status, 200);
});

Serve('HEAD gives the headers of GET and no body', async () => {
  const answer = await rawRequest(server.url, data.url, { method: 'HEAD' });
  assert.is(answer.status, 200);
  assert.is(answer.headers['content-type'], 'image/png');
  assert.is(answer.headers['content-length'], String(png.length));
  assert.is(answer.headers['cache-control'], IMMUTABLE);
  assert.ok(answer.headers.etag);
  assert.is(answer.body.length, 0);
});

const md5 = () => data.md5;
const notFound = [
  { what: 'unknown md5', path: () => `/img/1/${'0'.repeat(32)}` },
  { what: 'unknown md5 as .webp', path: () => `/img/1/${'0'.repeat(32)}.webp` },
  { what: 'upper-case md5', path: () => `/img/1/${md5().toUpperCase()}` },
  { what: '31 hex characters', path: () => `/img/1/${md5().slice(1)}` },
  { what: '33 hex characters', path: () => `/img/1/${md5()}a` },
  { what: 'non-hex md5', path: () => `/img/1/${'g'.repeat(32)}` },
  { what: 'letters in the timestamp', path: () => `/img/12a/${md5()}` },
  { what: 'negative timestamp', path: () => `/img/-1/${md5()}` },
  { what: '17-digit timestamp', path: () => `/img/${'1'.repeat(17)}/${md5()}` },
  { what: 'the stored extension', path: () => `/img/1/${md5()}.png` },
  { what: 'another extension', path: () => `/img/1/${md5()}.jpg` },
  { what: 'traversal in the file (..%2F..)', path: () => '/img/1/..%2F..' },
  { what: 'traversal in the timestamp (..%2F..%2Fetc/passwd)', path: () => '/img/..%2F..%2Fetc/passwd' },
  { what: 'encoded dot-dot (%2e%2e)', path: () => '/img/1/%2e%2e' },
  { what: 'encoded slash before the md5', path: () => `/img/1/%2F${md5()}` },
  { what: 'md5 with a NUL byte', path: () => `/img/1/${md5()}%00` },
  { what: 'missing file segment', path: () => '/img/1' },
  { what: 'empty file segment', path: () => '/img/1/' },
  { what: 'one segment too many', path: () => `/img/1/${md5()}/x` },
  { what: 'bare /img/', path: () => '/img/' },
];

for (const row of notFound) {
  Serve(`404 "Image not found" as text: ${row.what}`, async () => {
    const answer = await rawRequest(server.url, row.path());
    assert.is(answer.status, 404);
    assert.match(String(answer.headers['content-type']), /^text\/plain/);
    assert.is(answer.body.toString(), 'Image not found');
  });
}

Serve('a file deleted by hand after being served gives 404, not 500', async () => {
  const jpeg = await makeJpeg(101);
  const answer = await upload(server.url, jpeg, 'gone.jpg');
  const { url, md5: id } = answer.body.data;
  assert.is((await fetch(server.url + url)).status, 200);
  await rm(join(server.config.imagesDir, id.slice(0, 2), `${id}.jpg`));
  const res = await fetch(server.url + url);
  assert.is(res.status, 404);
  assert.is(await res.text(), 'Image not found');
});

const removedByHand = [
  { what: 'the original first, then its .webp', previewMade: false, order: ['url', 'webpUrl'] as const },
  { what: 'its .webp first (no preview made yet), then the original', previewMade: false, order: ['webpUrl', 'url'] as const },
  { what: 'its .webp already made and remembered, then the original', previewMade: true, order: ['webpUrl', 'url'] as const },
];

for (const row of removedByHand) {
  Serve(`an original removed by hand while its lookup is cached gives 404 on ${row.what}, not 500`, async () => {
    const jpeg = await makeJpeg(102 + removedByHand.indexOf(row));
    const answer = await upload(server.url, jpeg, 'cached.jpg');
    const data = answer.body.data as { url: string; webpUrl: string; md5: string };
    // The upload itself put the lookup in the cache; a GET proves it is served from there.
    assert.is((await fetch(server.url + data.url, { method: 'HEAD' })).status, 200);
    if (row.previewMade) assert.is((await fetch(server.url + data.webpUrl, { method: 'HEAD' })).status, 200);
    await rm(join(server.config.imagesDir, data.md5.slice(0, 2), `${data.md5}.jpg`));
    for (const key of row.order) {
      const res = await fetch(server.url + data[key]);
      assert.is(res.status, 404, key);
      assert.is(await res.text(), 'Image not found', key);
    }
  });
}

Serve('Range: one byte range of an original or a preview is 206 with Content-Range; past the end 416; a stale If-Range the whole', async () => {
  const part = await fetch(server.url + data.url, { headers: { Range: 'bytes=10-109' } });
  assert.is(part.status, 206);
  assert.is(part.headers.get('content-range'), `bytes 10-109/${png.length}`);
  assert.is(part.headers.get('content-length'), '100');
  assert.is(part.headers.get('accept-ranges'), 'bytes');
  assert.ok(Buffer.from(await part.arrayBuffer()).equals(png.subarray(10, 110)));
  const tail = await fetch(server.url + data.url, { headers: { Range: 'bytes=-20' } });
  assert.ok(Buffer.from(await tail.arrayBuffer()).equals(png.subarray(-20)));
  const head = await fetch(server.url + data.url, { method: 'HEAD', headers: { Range: 'bytes=0-9' } });
  assert.equal([head.status, head.headers.get('content-length')], [206, '10']);

  const beyond = await fetch(server.url + data.url, { headers: { Range: `bytes=${png.length}-` } });
  assert.is(beyond.status, 416);
  assert.is(beyond.headers.get('content-range'), `bytes */${png.length}`);
  const stale = await fetch(server.url + data.url, { headers: { Range: 'bytes=0-9', 'If-Range': '"other"' } });
  assert.is(stale.status, 200);
  assert.is((await stale.arrayBuffer()).byteLength, png.length);

  const webp = Buffer.from(await (await fetch(server.url + data.webpUrl)).arrayBuffer());
  const webpPart = await fetch(server.url + data.webpUrl, { headers: { Range: 'bytes=0-11' } });
  assert.is(webpPart.status, 206);
  assert.ok(Buffer.from(await webpPart.arrayBuffer()).equals(webp.subarray(0, 12)));
});

Serve('POST to an image URL is 405', async () => {
  const answer = await rawRequest(server.url, data.url, { method: 'POST' });
  assert.is(answer.status, 405);
});

Serve.run();
