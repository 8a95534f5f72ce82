// The image host with STORAGE_URL=s3://... against a real S3-protocol server
// (s3rver): uploads, originals, previews and packages live in the bucket; reads
// come through a bounded local cache; a stopped bucket answers 503 with Retry-After
// and takes /readyz down, and everything resumes when it is back.
import { createHash, randomBytes } from 'node:crypto';
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PROBE_CACHE_MS } from '../../../src/services/imghost/storage/object-storage.js';
import { listFiles, rawRequest, upload } from '../../fixtures/images/client.js';
import { makeJpeg, makePng } from '../../fixtures/images/generate.js';
import { startTestBucket, TEST_BUCKET, type TestBucket } from '../../helpers/s3-bucket.js';
import { startTestImghost, type TestServer } from '../../helpers/servers.js';
import { manualClock } from '../../helpers/time.js';
import { buildZip } from '../../helpers/zip-writer.js';

const Bucket = suite('image host on a bucket');
let bucket: TestBucket;
let host: TestServer;
const md5Of = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');
const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const bodyOf = async (res: Response) => Buffer.from(await res.arrayBuffer());
/** `host`'s clock: its readiness probe's answer is believed until a test moves it. */
const clock = manualClock();

/** Objects s3rver holds under the bucket, as keys (it keeps each as `<key>._S3rver_object`). */
async function objectKeys(): Promise<string[]> {
  const dir = join(bucket.directory, TEST_BUCKET);
  const files = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  return files.filter((name) => name.endsWith('._S3rver_object')).map((name) => name.slice(0, -'._S3rver_object'.length)).sort();
}

const cacheDir = (server: TestServer) => join(server.config.dataDir, 'cache');

Bucket.before(async () => {
  bucket = await startTestBucket();
  host = await startTestImghost(bucket.env('backend'), clock.now);
});

Bucket.after(async () => {
  await host?.close();
  await bucket?.close();
});

Bucket('an upload is stored in the bucket once, under its md5, and served byte for byte', async () => {
  const png = await makePng(1);
  const md5 = md5Of(png);
  const first = await upload(host.url, png, 'a.png');
  assert.is(first.status, 200);
  const again = await upload(host.url, png, 'b.png');
  assert.is(again.status, 200);
  const keys = (await objectKeys()).filter((key) => key.includes(md5));
  assert.equal(keys, [`backend/images/${md5.slice(0, 2)}/${md5}.png`]);
  const res = await fetch(host.url + first.body.data.url);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'image/png');
  assert.is(res.headers.get('etag'), `"${md5}"`);
  assert.ok((await bodyOf(res)).equals(png));
  // Nothing of the upload is left in the local temp folder.
  assert.equal((await listFiles(host.config.imagesDir)).filter((name) => name.startsWith('.tmp/')), []);
});

Bucket('a preview is made on first request, stored in the bucket, and served', async () => {
  const jpeg = await makeJpeg(2);
  const md5 = md5Of(jpeg);
  const answer = await upload(host.url, jpeg, 'a.jpg');
  const res = await fetch(host.url + answer.body.data.webpUrl);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'image/webp');
  const webp = await bodyOf(res);
  assert.is(webp.subarray(8, 12).toString(), 'WEBP');
  assert.ok((await objectKeys()).includes(`backend/images/${md5.slice(0, 2)}/${md5}.preview.webp`));
});

Bucket('an unknown image is 404 Image not found, as on disk', async () => {
  const res = await fetch(`${host.url}/img/1/${'0'.repeat(32)}`);
  assert.is(res.status, 404);
  assert.is(await res.text(), 'Image not found');
});

const plugin = buildZip([
  { name: 'plugin.json', data: Buffer.from('{"id":"demo"}') },
  { name: 'blob.bin', data: randomBytes(50_000), method: 0 },
]);

Bucket('a package is stored once in the bucket and served whole and by Range (206, 416)', async () => {
  const post = () => fetch(host.url + '/api/packages', { method: 'POST', body: new Uint8Array(plugin), headers: { 'Content-Type': 'application/zip' } });
  const stored = await post();
  assert.is(stored.status, 201);
  assert.is((await post()).status, 201);
  const sha = sha256Of(plugin);
  assert.equal((await objectKeys()).filter((key) => key.includes(sha)), [`backend/packages/${sha.slice(0, 2)}/${sha}.zip`]);
  const url = `${host.url}/pkg/${sha}/demo.zip`;
  const whole = await fetch(url);
  assert.is(whole.status, 200);
  assert.ok((await bodyOf(whole)).equals(plugin));
  for (const { what, range, start, end } of [
    { what: 'a middle range', range: 'bytes=100-4099', start: 100, end: 4099 },
    { what: 'a suffix', range: 'bytes=-10', start: plugin.length - 10, end: plugin.length - 1 },
    { what: 'an open end', range: 'bytes=50000-', start: 50000, end: plugin.length - 1 },
  ]) {
    const res = await fetch(url, { headers: { Range: range } });
    assert.is(res.status, 206, what);
    assert.is(res.headers.get('content-range'), `bytes ${start}-${end}/${plugin.length}`, what);
    assert.ok((await bodyOf(res)).equals(plugin.subarray(start, end + 1)), what);
  }
  const beyond = await fetch(url, { headers: { Range: `bytes=${plugin.length}-` } });
  assert.is(beyond.status, 416);
  assert.is(beyond.headers.get('content-range'), `bytes */${plugin.length}`);
});

Bucket('a removed package is 410 from the bucket', async () => {
  const bytes = buildZip([{ name: 'plugin.json', data: Buffer.from('{"id":"gone"}') }]);
  const sha = sha256Of(bytes);
  assert.is((await fetch(host.url + '/api/packages', { method: 'POST', body: new Uint8Array(bytes), headers: { 'Content-Type': 'application/zip' } })).status, 201);
  assert.is((await fetch(`${host.url}/api/packages/${sha}`, { method: 'DELETE' })).status, 200);
  assert.is((await fetch(`${host.url}/pkg/${sha}/gone.zip`)).status, 410);
  assert.not.ok((await objectKeys()).includes(`backend/packages/${sha.slice(0, 2)}/${sha}.zip`));
});

Bucket('the local cache stays within STORAGE_CACHE_MAX_BYTES and serves what it evicted from the bucket again', async () => {
  const small = await startTestImghost({ ...bucket.env('backend'), STORAGE_CACHE_MAX_BYTES: '6000' });
  try {
    const images = await Promise.all([10, 11, 12, 13, 14, 15].map((seed) => makePng(seed, 40, 30)));
    const urls: string[] = [];
    for (const png of images) urls.push((await upload(small.url, png, 'a.png')).body.data.url);
    // Read them all twice, in order: each read may evict an older one.
    for (let round = 0; round < 2; round++) {
      for (const [index, url] of urls.entries()) {
        const res = await fetch(small.url + url);
        assert.is(res.status, 200);
        assert.ok((await bodyOf(res)).equals(images[index]!), `image ${index}, round ${round}`);
        let total = 0;
        for (const name of await listFiles(cacheDir(small))) {
          if (!name.startsWith('.tmp')) total += (await stat(join(cacheDir(small), name))).size;
        }
        assert.ok(total <= 6000, `cache holds ${total} bytes`);
      }
    }
    // A range of an image larger than the whole cache comes straight from the bucket, the range passed on.
    const large = await makePng(16, 200, 150);
    assert.ok(large.length > 6000, `${large.length} bytes`);
    const url = (await upload(small.url, large, 'a.png')).body.data.url;
    const part = await fetch(small.url + url, { headers: { Range: 'bytes=1000-1999' } });
    assert.is(part.status, 206);
    assert.is(part.headers.get('content-range'), `bytes 1000-1999/${large.length}`);
    assert.ok((await bodyOf(part)).equals(large.subarray(1000, 2000)));
  } finally {
    await small.close();
  }
});

Bucket('an object whose bytes do not match its md5 is never cached or served: 503, then served once repaired', async () => {
  const png = await makePng(40);
  const md5 = md5Of(png);
  const url = (await upload(host.url, png, 'a.png')).body.data.url as string;
  const objectFile = join(bucket.directory, TEST_BUCKET, `backend/images/${md5.slice(0, 2)}/${md5}.png._S3rver_object`);
  const damaged = Buffer.from(png);
  damaged[damaged.length - 5] ^= 0xff;
  await writeFile(objectFile, damaged);
  const fresh = await startTestImghost(bucket.env('backend'));
  try {
    const res = await fetch(fresh.url + url);
    assert.is(res.status, 503);
    assert.is(res.headers.get('retry-after'), '5');
    assert.equal((await listFiles(cacheDir(fresh))).filter((name) => name.includes(md5)), []);
    await writeFile(objectFile, png);
    const repaired = await fetch(fresh.url + url);
    assert.is(repaired.status, 200);
    assert.ok((await bodyOf(repaired)).equals(png));
  } finally {
    await fresh.close();
  }
});

Bucket('with STORAGE_PUBLIC_URL, reads answer 302 to the object there', async () => {
  const cdn = await startTestImghost({ ...bucket.env('backend'), STORAGE_PUBLIC_URL: 'https://cdn.example/files' });
  try {
    const png = await makePng(20);
    const md5 = md5Of(png);
    const answer = await upload(cdn.url, png, 'a.png');
    assert.is(answer.status, 200);
    const original = await rawRequest(cdn.url, answer.body.data.url);
    assert.is(original.status, 302);
    assert.is(original.headers.location, `https://cdn.example/files/backend/images/${md5.slice(0, 2)}/${md5}.png`);
    const preview = await rawRequest(cdn.url, answer.body.data.webpUrl);
    assert.is(preview.status, 302);
    assert.is(preview.headers.location, `https://cdn.example/files/backend/images/${md5.slice(0, 2)}/${md5}.preview.webp`);
    const sha = sha256Of(plugin);
    const pkg = await rawRequest(cdn.url, `/pkg/${sha}/demo.zip`);
    assert.is(pkg.status, 302);
    assert.is(pkg.headers.location, `https://cdn.example/files/backend/packages/${sha.slice(0, 2)}/${sha}.zip`);
  } finally {
    await cdn.close();
  }
});

Bucket('package redirect cached a day by shared caches: a 302 to STORAGE_PUBLIC_URL is no-cache, so a removal answers 410 at once', async () => {
  const cdn = await startTestImghost({ ...bucket.env('backend'), STORAGE_PUBLIC_URL: 'https://cdn.example/files' });
  try {
    const stored = await fetch(cdn.url + '/api/packages', { method: 'POST', body: new Uint8Array(plugin), headers: { 'Content-Type': 'application/zip' } });
    assert.is(stored.status, 201);
    const pkg = await rawRequest(cdn.url, `/pkg/${sha256Of(plugin)}/demo.zip`);
    assert.is(pkg.status, 302);
    assert.is(pkg.headers['cache-control'], 'no-cache');
  } finally {
    await cdn.close();
  }
});

Bucket('bucket stopped: uploads and uncached reads answer 503 UNAVAILABLE with Retry-After, /readyz 503; back: all resumes', async () => {
  const cachedPng = await makePng(30);
  const cached = (await upload(host.url, cachedPng, 'a.png')).body.data.url as string;
  assert.is((await fetch(host.url + cached)).status, 200);
  const sha = sha256Of(plugin);
  const fresh = await startTestImghost(bucket.env('backend'));
  try {
    await bucket.stop();
    clock.advance(PROBE_CACHE_MS + 1);
    const ready = await fetch(host.url + '/readyz');
    assert.is(ready.status, 503);

    const refused = await upload(host.url, await makePng(31), 'b.png');
    assert.is(refused.status, 503);
    assert.is(refused.body.code, 'UNAVAILABLE');
    assert.is(refused.headers.get('retry-after'), '5');

    // A host that has not seen the image yet must ask the bucket: 503 UNAVAILABLE.
    const uncached = await fetch(fresh.url + cached);
    assert.is(uncached.status, 503);
    assert.is(uncached.headers.get('retry-after'), '5');
    assert.is((await uncached.json()).code, 'UNAVAILABLE');
    const pkg = await fetch(`${host.url}/pkg/${sha}/demo.zip`);
    assert.is(pkg.status, 503);
    assert.is((await pkg.json()).code, 'UNAVAILABLE');

    // What this host holds in its cache it still serves.
    const hot = await fetch(host.url + cached);
    assert.is(hot.status, 200);
    assert.ok((await bodyOf(hot)).equals(cachedPng));

    await bucket.start();
    clock.advance(PROBE_CACHE_MS + 1);
    assert.is((await fetch(host.url + '/readyz')).status, 200);
    assert.is((await upload(host.url, await makePng(31), 'b.png')).status, 200);
    const resumed = await fetch(fresh.url + cached);
    assert.is(resumed.status, 200);
    assert.ok((await bodyOf(resumed)).equals(cachedPng));
    assert.is((await fetch(`${host.url}/pkg/${sha}/demo.zip`)).status, 200);
  } finally {
    await fresh.close();
  }
});

Bucket.run();
