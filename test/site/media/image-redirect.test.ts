// GET /img/:timestamp/:file on the site: the in-site name of an image on the image
// host (plugin images must be https or in-site paths, and the image host under
// `npm start` is plain http). A redirect to the same path under
// IMAGE_HOST_PUBLIC_URL, only for the image host's own URL shapes; the image behind
// it is the one the image host serves.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePng } from '../../fixtures/images/generate.js';
import { upload } from '../../fixtures/images/client.js';
import { closeTestSql, startTestImghost, startTestSite, type TestServer } from '../../helpers/servers.js';

const MD5 = '0123456789abcdef0123456789abcdef';
let site: TestServer;
let imghost: TestServer;

test.before(async () => {
  imghost = await startTestImghost();
  site = await startTestSite({ IMAGE_HOST_URL: imghost.url, IMAGE_HOST_PUBLIC_URL: imghost.url });
});
test.after(async () => {
  await site?.close();
  await imghost?.close();
  await closeTestSql();
});

const redirected = [
  { what: 'an original', path: `/img/1700000000000/${MD5}` },
  { what: 'its WebP preview', path: `/img/1/${MD5}.webp` },
];
for (const { what, path } of redirected) {
  test(`GET ${path} (${what}): 302 to the same path on the image host, cacheable for a day`, async () => {
    const res = await fetch(site.url + path, { redirect: 'manual' });
    assert.is(res.status, 302);
    assert.is(res.headers.get('location'), imghost.url + path);
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
  test(`GET ${path} (${what}): 404 NOT_FOUND, no redirect`, async () => {
    const res = await fetch(site.url + path, { redirect: 'manual' });
    assert.is(res.status, 404);
    assert.is(res.headers.get('location'), null);
    const body = (await res.json()) as { success: boolean; code: string };
    assert.is(body.success, false);
    assert.is(body.code, 'NOT_FOUND');
  });
}

test('an image uploaded to the image host is served through its in-site name', async () => {
  const bytes = await makePng(4242, 32, 32);
  const answer = await upload(imghost.url, bytes, 'x.png');
  assert.is(answer.status, 200);
  const res = await fetch(site.url + answer.body.data.url);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'image/png');
  assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes));
});

test.run();
