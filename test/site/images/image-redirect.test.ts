// GET /img/:timestamp/:file on the site: the in-site name of an image on the image
// host (plugin images must be https or in-site paths). With the image host on
// https, a redirect to the same path under IMAGE_HOST_PUBLIC_URL; on plain http (as
// under `npm start`), the image streamed through the site, so that no page loads an
// image over http. Only the image host's own URL shapes are answered.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePng } from '../../fixtures/images/generate.js';
import { upload } from '../../fixtures/images/client.js';
import { closeTestSql, startTestImghost, startTestSite, type TestServer } from '../../helpers/servers.js';

const MD5 = '0123456789abcdef0123456789abcdef';
const HTTPS_HOST = 'https://img.example';
let imghost: TestServer;
/** The image host on http: images go through the site. */
let proxied: TestServer;
/** The image host on https: the site redirects. */
let redirecting: TestServer;

test.before(async () => {
  imghost = await startTestImghost();
  proxied = await startTestSite({ IMAGE_HOST_URL: imghost.url, IMAGE_HOST_PUBLIC_URL: imghost.url });
  redirecting = await startTestSite({ IMAGE_HOST_URL: imghost.url, IMAGE_HOST_PUBLIC_URL: HTTPS_HOST });
});
test.after(async () => {
  await proxied?.close();
  await redirecting?.close();
  await imghost?.close();
  await closeTestSql();
});

for (const { what, path } of [
  { what: 'an original', path: `/img/1700000000000/${MD5}` },
  { what: 'its WebP preview', path: `/img/1/${MD5}.webp` },
]) {
  test(`image host on https: GET ${path} (${what}) is 302 to the same path there, cacheable for a day`, async () => {
    const res = await fetch(redirecting.url + path, { redirect: 'manual' });
    assert.is(res.status, 302);
    assert.is(res.headers.get('location'), HTTPS_HOST + path);
    assert.is(res.headers.get('cache-control'), 'public, max-age=86400');
    assert.is(await res.text(), '');
  });
}

const refused = [
  { what: 'a timestamp that is not a number', path: `/img/now/${MD5}` },
  { what: 'a short md5', path: '/img/1/0123' },
  { what: 'upper-case hex', path: `/img/1/${MD5.toUpperCase()}` },
  { what: 'another extension', path: `/img/1/${MD5}.png` },
  { what: 'a preview name the image host does not serve', path: `/img/1/${MD5}.preview.webp` },
  { what: 'an encoded slash', path: `/img/1/${MD5}%2F..` },
  { what: 'a segment too many', path: `/img/1/${MD5}/x` },
];
for (const { what, path } of refused) {
  test(`GET ${path} (${what}): 404 NOT_FOUND on either, no redirect`, async () => {
    for (const site of [proxied, redirecting]) {
      const res = await fetch(site.url + path, { redirect: 'manual' });
      assert.is(res.status, 404);
      assert.is(res.headers.get('location'), null);
      const body = (await res.json()) as { success: boolean; code: string };
      assert.equal([body.success, body.code], [false, 'NOT_FOUND']);
    }
  });
}

test('image host on http: an uploaded image and its preview are streamed through the site, byte for byte', async () => {
  const bytes = await makePng(4242, 32, 32);
  const answer = await upload(imghost.url, bytes, 'x.png');
  assert.is(answer.status, 200);
  const res = await fetch(proxied.url + answer.body.data.url, { redirect: 'manual' });
  assert.is(res.status, 200);
  assert.is(res.headers.get('location'), null);
  assert.is(res.headers.get('content-type'), 'image/png');
  assert.is(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes));

  const direct = await fetch(imghost.url + answer.body.data.webpUrl);
  const preview = await fetch(proxied.url + answer.body.data.webpUrl, { redirect: 'manual' });
  assert.is(preview.status, 200);
  assert.is(preview.headers.get('content-type'), 'image/webp');
  assert.ok(Buffer.from(await preview.arrayBuffer()).equals(Buffer.from(await direct.arrayBuffer())));

  // Revalidation is asked of the image host, and its 304 relayed; HEAD has the length and no body.
  const etag = res.headers.get('etag')!;
  assert.ok(etag);
  const again = await fetch(proxied.url + answer.body.data.url, { headers: { 'if-none-match': etag } });
  assert.is(again.status, 304);
  assert.is(again.headers.get('etag'), etag);
  const head = await fetch(proxied.url + answer.body.data.url, { method: 'HEAD' });
  assert.equal([head.status, head.headers.get('content-length'), await head.text()], [200, String(bytes.length), '']);

  // An image the image host does not have.
  assert.is((await fetch(`${proxied.url}/img/1/${MD5}`)).status, 404);
});

type Answer = (res: ServerResponse) => void;

test('image host on http: what is not an image, too large, or redirected off https is 502, never relayed', async () => {
  // One stand-in image host, told before each request how to answer it.
  let answer: Answer = (res) => res.writeHead(500).end();
  const fake: Server = createServer((_req, res) => answer(res));
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  const site = await startTestSite({ IMAGE_HOST_URL: url, IMAGE_HOST_PUBLIC_URL: url });
  try {
    const cases: Array<{ what: string; answer: Answer }> = [
      { what: 'HTML', answer: (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<script>alert(1)</script>') },
      { what: 'no length', answer: (res) => { res.writeHead(200, { 'content-type': 'image/png' }); res.end(Buffer.alloc(10)); } },
      { what: 'an image over 8 MiB', answer: (res) => res.writeHead(200, { 'content-type': 'image/png', 'content-length': 9 * 1024 * 1024 }).end() },
      { what: 'a redirect to http', answer: (res) => res.writeHead(302, { location: 'http://evil.example/x.png' }).end() },
      { what: 'a server error', answer: (res) => res.writeHead(500).end() },
      // Read whole before a byte is sent, an image cut short is a clean 502, not a cut answer.
      { what: 'an image cut short of its length', answer: (res) => { res.writeHead(200, { 'content-type': 'image/png', 'content-length': 100 }); res.write(Buffer.alloc(10), () => res.destroy()); } },
    ];
    for (const c of cases) {
      answer = c.answer;
      const res = await fetch(`${site.url}/img/1/${MD5}`, { redirect: 'manual' });
      assert.is(res.status, 502, c.what);
      assert.is(res.headers.get('location'), null, c.what);
      assert.is(((await res.json()) as { code: string }).code, 'UPSTREAM_FAILED', c.what);
    }
    // A bucket's https address, as an image host on a bucket redirects, is relayed.
    answer = (res) => res.writeHead(302, { location: 'https://bucket.example/images/x.png', 'cache-control': 'public, max-age=86400' }).end();
    const res = await fetch(`${site.url}/img/1/${MD5}`, { redirect: 'manual' });
    assert.equal([res.status, res.headers.get('location')], [302, 'https://bucket.example/images/x.png']);
  } finally {
    await site.close();
    await new Promise((resolve) => fake.close(resolve));
  }
});

test.run();
