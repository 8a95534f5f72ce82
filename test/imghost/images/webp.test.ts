import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { conversionStats } from '../../../src/services/imghost/images/previews.js';
import { startTestImghost, type TestServer } from '../../helpers/servers.js';
import { listFiles, rawRequest, upload } from '../../fixtures/images/client.js';
import { makeAnimatedGif, makeGif, makeJpeg, makePng, makeRotatedJpeg, makeWebp } from '../../fixtures/images/generate.js';

let server: TestServer;

const Webp = suite('GET /img/:timestamp/:md5.webp');

Webp.before(async () => {
  server = await startTestImghost();
});

Webp.after(async () => {
  await server?.close();
});

async function uploaded(bytes: Buffer, name: string) {
  const answer = await upload(server.url, bytes, name);
  assert.is(answer.status, 200);
  return answer.body.data as { url: string; webpUrl: string; md5: string };
}

const bodyOf = async (res: Response) => Buffer.from(await res.arrayBuffer());
const previewFile = (md5: string) => join(md5.slice(0, 2), `${md5}.preview.webp`);

const sources = [
  { what: 'JPEG', make: () => makeJpeg(200), name: 'a.jpg' },
  { what: 'PNG', make: () => makePng(201), name: 'a.png' },
  { what: 'GIF', make: () => makeGif(202), name: 'a.gif' },
  { what: 'WebP (kept apart from its original)', make: () => makeWebp(203), name: 'a.webp' },
];

for (const row of sources) {
  Webp(`a ${row.what} converts once on first request, then is served from disk`, async () => {
    const original = await row.make();
    const data = await uploaded(original, row.name);
    const started = conversionStats.started;
    const first = await fetch(server.url + data.webpUrl);
    assert.is(first.status, 200);
    assert.is(first.headers.get('content-type'), 'image/webp');
    assert.is(first.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const webp = await bodyOf(first);
    assert.is(first.headers.get('content-length'), String(webp.length));
    const meta = await sharp(webp).metadata();
    assert.is(meta.format, 'webp');
    const source = await sharp(original).metadata();
    assert.is(meta.width, source.width);
    assert.is(conversionStats.started, started + 1);

    const second = await fetch(server.url + data.webpUrl);
    assert.ok((await bodyOf(second)).equals(webp));
    assert.is(conversionStats.started, started + 1, 'second request converted again');
    assert.ok((await listFiles(server.config.imagesDir)).includes(previewFile(data.md5)));
    // The original is untouched by its preview, WebP uploads included.
    assert.ok((await bodyOf(await fetch(server.url + data.url))).equals(original));
    assert.is.not(second.headers.get('etag'), (await fetch(server.url + data.url)).headers.get('etag'));
  });
}

Webp('ETag, 304 and HEAD work for the preview', async () => {
  const data = await uploaded(await makeJpeg(210), 'b.jpg');
  const res = await fetch(server.url + data.webpUrl);
  const etag = res.headers.get('etag')!;
  const length = (await bodyOf(res)).length;
  assert.match(etag, /^"[^"]+"$/);
  const cached = await rawRequest(server.url, data.webpUrl, { headers: { 'If-None-Match': etag } });
  assert.is(cached.status, 304);
  assert.is(cached.body.length, 0);
  const head = await rawRequest(server.url, data.webpUrl, { method: 'HEAD' });
  assert.is(head.status, 200);
  assert.is(head.headers['content-type'], 'image/webp');
  assert.is(head.headers['content-length'], String(length));
  assert.is(head.body.length, 0);
});

Webp('HEAD of a preview never requested converts it and answers its length', async () => {
  const data = await uploaded(await makePng(211), 'h.png');
  const head = await rawRequest(server.url, data.webpUrl, { method: 'HEAD' });
  assert.is(head.status, 200);
  const get = await fetch(server.url + data.webpUrl);
  assert.is(head.headers['content-length'], String((await bodyOf(get)).length));
});

Webp('single flight: 20 concurrent first requests run one conversion and get identical bytes', async () => {
  const data = await uploaded(await makeJpeg(220, 640, 480), 'c.jpg');
  const started = conversionStats.started;
  const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(server.url + data.webpUrl)));
  const bodies = await Promise.all(answers.map(bodyOf));
  assert.ok(answers.every((res) => res.status === 200));
  assert.is(conversionStats.started, started + 1);
  assert.ok(bodies.every((body) => body.equals(bodies[0]!)));
});

Webp('EXIF orientation 6 is applied: width and height swap', async () => {
  const data = await uploaded(await makeRotatedJpeg(230, 80, 40), 'r.jpg');
  const webp = await bodyOf(await fetch(server.url + data.webpUrl));
  const meta = await sharp(webp).metadata();
  assert.is(meta.width, 40);
  assert.is(meta.height, 80);
});

Webp('a preview is at most 4096 px on its longest side, proportions kept', async () => {
  const data = await uploaded(await makePng(235, 5000, 100), 'wide.png');
  const webp = await bodyOf(await fetch(server.url + data.webpUrl));
  const meta = await sharp(webp).metadata();
  assert.is(meta.width, 4096);
  assert.is(meta.height, 82);
});

Webp('an animated GIF becomes an animated WebP', async () => {
  const data = await uploaded(await makeAnimatedGif(240, 4), 'anim.gif');
  const webp = await bodyOf(await fetch(server.url + data.webpUrl));
  const meta = await sharp(webp, { animated: true }).metadata();
  assert.is(meta.format, 'webp');
  assert.ok((meta.pages ?? 1) > 1, `pages: ${meta.pages}`);
});

Webp('a corrupt stored original gives 500 text, caches nothing, and the next request tries again', async () => {
  const jpeg = await makeJpeg(250);
  const data = await uploaded(jpeg, 'd.jpg');
  const stored = join(server.config.imagesDir, data.md5.slice(0, 2), `${data.md5}.jpg`);
  const good = await readFile(stored);
  await writeFile(stored, Buffer.concat([good.subarray(0, 20), Buffer.alloc(good.length - 20, 0x55)]));

  const failed = conversionStats.failed;
  const res = await fetch(server.url + data.webpUrl);
  assert.is(res.status, 500);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  assert.type(await res.text(), 'string');
  assert.is(conversionStats.failed, failed + 1);
  const files = await listFiles(server.config.imagesDir);
  assert.not.ok(files.includes(previewFile(data.md5)), 'a failed preview was kept');
  assert.equal(files.filter((name) => name.startsWith('.tmp')), [], 'a temp file was left behind');

  const started = conversionStats.started;
  assert.is((await fetch(server.url + data.webpUrl)).status, 500);
  assert.is(conversionStats.started, started + 1, 'the failure was cached');

  await writeFile(stored, good);
  const retry = await fetch(server.url + data.webpUrl);
  assert.is(retry.status, 200);
  assert.is((await sharp(await bodyOf(retry)).metadata()).format, 'webp');
});

Webp('a .webp of an unknown md5 is 404 text and converts nothing', async () => {
  const started = conversionStats.started;
  const answer = await rawRequest(server.url, `/img/1/${'a'.repeat(32)}.webp`);
  assert.is(answer.status, 404);
  assert.is(answer.body.toString(), 'Image not found');
  assert.is(conversionStats.started, started);
});

Webp.run();
