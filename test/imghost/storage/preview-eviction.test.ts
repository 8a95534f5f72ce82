// A preview made from the local cache's copy of an original keeps that copy until the
// conversion is done: with a cache of a few images and many first-time previews at
// once, fills evict (and delete) originals whose conversions still wait for a decode
// slot. Each must still be converted, never answered 500.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { listFiles, upload } from '../../fixtures/images/client.js';
import { makeJpeg } from '../../fixtures/images/generate.js';
import { startTestBucket, type TestBucket } from '../../helpers/s3-bucket.js';
import { startTestImghost, type TestServer } from '../../helpers/servers.js';

const IMAGES = 24;
const Eviction = suite('previews under cache eviction');
let bucket: TestBucket;
let host: TestServer;

Eviction.before(async () => {
  bucket = await startTestBucket();
});

Eviction.after(async () => {
  await host?.close();
  await bucket?.close();
});

Eviction('evicted cached original: many first-time previews with a tiny cache all convert (no 500)', async () => {
  const images = await Promise.all(Array.from({ length: IMAGES }, (_, i) => makeJpeg(1000 + i, 256, 192)));
  const largest = Math.max(...images.map((image) => image.length));
  // Room for about two originals: every fill evicts an original another preview waits on.
  host = await startTestImghost({ ...bucket.env('evict'), STORAGE_CACHE_MAX_BYTES: String(largest * 2 + 100) });
  const urls: string[] = [];
  for (const [i, image] of images.entries()) {
    const answer = await upload(host.url, image, `${i}.jpg`);
    assert.is(answer.status, 200);
    urls.push(answer.body.data.webpUrl);
  }
  const answers = await Promise.all(urls.map(async (url) => {
    const res = await fetch(host.url + url);
    const body = Buffer.from(await res.arrayBuffer());
    return { status: res.status, webp: body.subarray(8, 12).toString() };
  }));
  assert.equal(answers.map((a) => a.status), urls.map(() => 200));
  assert.ok(answers.every((a) => a.webp === 'WEBP'));
  // The pinned copies are let go once converted.
  assert.equal((await listFiles(host.config.imagesDir)).filter((name) => name.startsWith('.tmp/')), []);
});

Eviction.run();
