// The pages' HTML routes over HTTP: language from the cookie and Accept-Language,
// CSP, the plugin page's exact path, hashed assets with long caching, compression.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fromAcceptLanguage } from '../../../src/services/site/pages/language.js';
import { rawRequest } from '../../helpers/raw-http.js';
import { EDITABLE_FIELDS } from '../../../src/services/site/store/records.js';
import { LIMITS } from '../../../src/services/site/store/validation.js';
import { closeTestSql, startTestSite, type TestServer } from '../../helpers/servers.js';

let site: TestServer;
test.before(async () => {
  site = await startTestSite();
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

const PAGES = ['/', '/apps/', '/apps/submit', '/apps/edit/minimap', '/apps/mine', '/apps/review', '/apps/tokens'];
for (const path of PAGES) {
  test(`GET ${path}: an HTML page with a CSP that allows no inline script, and the header`, async () => {
    const res = await rawRequest(site.url, 'GET', path);
    assert.is(res.status, 200);
    assert.is(res.headers['content-type'], 'text/html; charset=utf-8');
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'/);
    assert.not.match(csp, /unsafe-inline/);
    assert.is(res.headers['cache-control'], 'no-cache');
    assert.match(String(res.headers.vary), /Accept-Language/);
    assert.match(res.body, /<header class="top">/);
    assert.match(res.body, /id="account"/);
    // The only script elements: the page's module (by hashed name) and two data blocks,
    // the strings and the server's plugin rules.
    const scripts = [...res.body.matchAll(/<script([^>]*)>/g)].map((match) => match[1]);
    assert.is(scripts.length, 3);
    assert.match(scripts[0]!, /type="module" src="\/static\/app\/[a-z]+\.[0-9a-f]{10}\.js"/);
    assert.match(scripts[1]!, /type="application\/json" id="strings"/);
    assert.match(scripts[2]!, /type="application\/json" id="rules"/);
    // The notification bell is Tabler's outline bell inlined, not an emoji a font must have.
    assert.match(res.body, /<button id="notes-button"[^>]*><svg class="glyph"[^>]*aria-hidden="true"[^>]*><path d="M10 5a2 2 0 1 1 4 0/);
    assert.not.match(res.body, /\u{1F514}/u);
  });
}

// Regression: the CSP's img-src allows http: (icons, screenshots and uploads are
// https or in-site by rule; an https page must not load clear-text images).
test("regression: the CSP's img-src allows http: (every page, the plugin page's 404 included)", async () => {
  for (const path of [...PAGES, '/apps/plugin/no-such-plugin']) {
    const res = await rawRequest(site.url, 'GET', path);
    const imgSrc = /(?:^|;\s*)img-src ([^;]*)/.exec(String(res.headers['content-security-policy']))?.[1];
    // The test site's image host is on http: its images come through the site's /img/ (media/image-proxy.ts).
    assert.is(imgSrc, "'self' data: https:", path);
    assert.not.match(String(res.headers['content-security-policy']), /http:/, path);
  }
});

// Under npm start the image host is http; the site's /img/ links used to redirect
// there, and the CSP then had to name that http origin. They are streamed through
// the site instead: no image source over http, whatever the image host's scheme.
test('the CSP names no image host, on http or on https', async () => {
  const https = await startTestSite({ IMAGE_HOST_PUBLIC_URL: 'https://img.example' });
  try {
    for (const server of [site, https]) {
      const res = await rawRequest(server.url, 'GET', '/apps/');
      const imgSrc = /(?:^|;\s*)img-src ([^;]*)/.exec(String(res.headers['content-security-policy']))?.[1];
      assert.is(imgSrc, "'self' data: https:");
    }
  } finally {
    await https.close();
  }
});

const languages: Array<{ what: string; headers: Record<string, string>; lang: string }> = [
  { what: 'no header: English', headers: {}, lang: 'en' },
  { what: 'Chinese browser', headers: { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' }, lang: 'zh-CN' },
  { what: 'zh-TW counts as Chinese', headers: { 'accept-language': 'zh-TW' }, lang: 'zh-CN' },
  { what: 'English preferred over Chinese by q', headers: { 'accept-language': 'zh;q=0.4, en-GB;q=0.8' }, lang: 'en' },
  { what: 'a language we lack falls through to the next', headers: { 'accept-language': 'fr-FR, zh;q=0.5' }, lang: 'zh-CN' },
  { what: 'the remembered switch wins over the browser', headers: { 'accept-language': 'zh-CN', cookie: 'lang=en' }, lang: 'en' },
  { what: 'and the other way', headers: { 'accept-language': 'en-US', cookie: 'sid=x; lang=zh-CN' }, lang: 'zh-CN' },
  { what: 'a forged cookie value is ignored', headers: { 'accept-language': 'en-US', cookie: 'lang=<script>' }, lang: 'en' },
];
for (const c of languages) {
  test(`language: ${c.what}`, async () => {
    const res = await rawRequest(site.url, 'GET', '/apps/', { headers: c.headers });
    assert.ok(res.body.includes(`<html lang="${c.lang}">`), res.body.slice(0, 80));
    assert.is(res.headers['content-language'], c.lang);
    const strings = JSON.parse(/<script type="application\/json" id="strings">(.*?)<\/script>/s.exec(res.body)![1]!) as Record<string, string>;
    assert.is(strings['nav.login'], c.lang === 'en' ? 'Log in' : '登录');
  });
}

test('fromAcceptLanguage: q=0 refuses a language', () => {
  assert.is(fromAcceptLanguage('zh;q=0, en;q=0.1'), 'en');
  assert.is(fromAcceptLanguage('*'), 'en');
  assert.is(fromAcceptLanguage('zh-Hans-CN'), 'zh-CN');
});

test('a plugin page for a plugin that is not there is 404 (the page still explains); see store/plugin-page.test.ts', async () => {
  const bad = await rawRequest(site.url, 'GET', '/apps/plugin/a%20b');
  assert.is(bad.status, 404);
  assert.match(bad.body, /<main id="main"/);
  assert.is((await rawRequest(site.url, 'GET', '/apps/plugin/ab')).status, 404, 'too short for an id');
});

test('/apps redirects to the store at /apps/', async () => {
  const res = await rawRequest(site.url, 'GET', '/apps');
  assert.is(res.status, 301);
  assert.is(res.headers.location, '/apps/');
});

test('pages: ETag and 304 per language; HEAD answers the head', async () => {
  const first = await rawRequest(site.url, 'GET', '/', { headers: { 'accept-language': 'zh' } });
  const english = await rawRequest(site.url, 'GET', '/');
  assert.is.not(first.headers.etag, english.headers.etag);
  const again = await rawRequest(site.url, 'GET', '/', { headers: { 'accept-language': 'zh', 'if-none-match': String(first.headers.etag) } });
  assert.is(again.status, 304);
  const head = await rawRequest(site.url, 'HEAD', '/apps/');
  assert.is(head.status, 200);
  assert.is(head.body, '');
});

test('assets: a hashed name is cached for a year, compressed with br or gzip, and its imports are hashed too', async () => {
  const page = await rawRequest(site.url, 'GET', '/apps/');
  const src = /<script type="module" src="([^"]+)"/.exec(page.body)![1]!;
  const plain = await rawRequest(site.url, 'GET', src);
  assert.is(plain.status, 200);
  assert.is(plain.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.is(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.is(plain.headers['content-encoding'], undefined);
  assert.match(String(plain.headers.vary), /Accept-Encoding/);
  // store.js imports lib.js and header.js by their hashed names, which are served
  // (as esbuild writes them: `from"./lib.<hash>.js"`).
  const imports = [...plain.body.matchAll(/(?:from|import)\s*["']\.\/([a-z]+\.[0-9a-f]{10}\.js)["']/g)].map((match) => match[1]!);
  assert.ok(imports.length >= 2, plain.body.slice(0, 300));
  for (const name of imports) assert.is((await rawRequest(site.url, 'GET', `/static/app/${name}`)).status, 200, name);

  const br = await rawRequest(site.url, 'GET', src, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
  assert.is(br.headers['content-encoding'], 'br');
  assert.is(brotliDecompressSync(br.bytes).toString(), plain.body);
  assert.ok(br.bytes.length < plain.bytes.length / 2);
  const gzip = await rawRequest(site.url, 'GET', src, { headers: { 'accept-encoding': 'gzip' } });
  assert.is(gzip.headers['content-encoding'], 'gzip');
  assert.is(gunzipSync(gzip.bytes).toString(), plain.body);
  assert.is.not(gzip.headers.etag, br.headers.etag, 'each encoding has its own ETag');
  const notModified = await rawRequest(site.url, 'GET', src, { headers: { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) } });
  assert.is(notModified.status, 304);
  const refused = await rawRequest(site.url, 'GET', src, { headers: { 'accept-encoding': 'br;q=0, gzip;q=0' } });
  assert.is(refused.headers['content-encoding'], undefined);

  const unhashed = await rawRequest(site.url, 'GET', '/static/app/store.js');
  assert.is(unhashed.headers['cache-control'], 'public, max-age=300, must-revalidate');
  assert.is(unhashed.body, plain.body);
});

test('templates and catalogues are not served as files', async () => {
  for (const path of ['/static/pages/layout.html', '/static/i18n/en.json', '/static/pages/']) {
    assert.is((await rawRequest(site.url, 'GET', path)).status, 404, path);
  }
});

test('the pages carry the server\'s plugin rules: the field list and the form\'s limits come from one source', async () => {
  const res = await rawRequest(site.url, 'GET', '/apps/submit');
  const block = /<script type="application\/json" id="rules">([^<]*)<\/script>/.exec(res.body);
  assert.ok(block, 'rules data block');
  const rules = JSON.parse(block![1]!);
  assert.equal(rules.fields, EDITABLE_FIELDS);
  assert.is(rules.maxScreenshots, LIMITS.screenshots);
  assert.match(res.body, new RegExp(`id="f-name" name="name" required maxlength="${LIMITS.name}"`));
  assert.match(res.body, new RegExp(`id="f-longDescription" name="longDescription" rows="8" maxlength="${LIMITS.longDescription}"`));
});

test.run();
