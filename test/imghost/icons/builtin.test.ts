// /SF/{name}, /api/svg_files and /SF over a real image host serving the built-in
// Tabler set. Requests go through node:http so paths reach the server byte for byte
// (fetch would normalize `%2e%2e` away before sending).
import { gunzipSync } from 'node:zlib';
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rawRequest } from '../../helpers/raw-http.js';
import { startTestImghost, type TestServer } from '../../helpers/servers.js';
import { RESOLVED_REQUEST_MAX_KEY_LENGTH, RESOLVED_REQUESTS_MAX_ENTRIES } from '../../../src/services/imghost/icons/icon-route.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
}

function call(base: string, path: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  return rawRequest(base, options.method ?? 'GET', path, { headers: options.headers }).then((res) => ({
    status: res.status,
    headers: res.headers,
    body: res.bytes,
    text: res.body,
  }));
}

let server: TestServer;
const get = (path: string, headers?: Record<string, string>) => call(server.url, path, { headers });

test.before(async () => {
  server = await startTestImghost();
});

test.after(async () => {
  await server.close();
});

test('GET /api/svg_files lists the built-in icons sorted, with filled variants', async () => {
  const answer = await get('/api/svg_files');
  assert.is(answer.status, 200);
  assert.match(String(answer.headers['content-type']), /^application\/json/);
  assert.ok(answer.headers.etag, 'has an ETag');
  const names = JSON.parse(answer.text) as string[];
  assert.ok(Array.isArray(names));
  assert.ok(names.length > 4000, `only ${names.length} icons`);
  assert.equal(names, [...names].sort(), 'sorted');
  assert.ok(names.every((name) => typeof name === 'string' && /^[A-Za-z0-9._-]+\.svg$/.test(name)));
  assert.is(new Set(names).size, names.length, 'no duplicates');
  for (const known of ['home.svg', 'home-filled.svg', 'arrow-left.svg', 'brand-github.svg']) assert.ok(names.includes(known), known);
});

test('GET /api/svg_files answers 304 to its ETag and gzip when asked', async () => {
  const plain = await get('/api/svg_files');
  const again = await get('/api/svg_files', { 'If-None-Match': String(plain.headers.etag) });
  assert.is(again.status, 304);
  assert.is(again.body.length, 0);
  const zipped = await get('/api/svg_files', { 'Accept-Encoding': 'gzip' });
  assert.is(zipped.status, 200);
  assert.is(zipped.headers['content-encoding'], 'gzip');
  assert.match(String(zipped.headers.vary), /Accept-Encoding/);
  assert.ok(zipped.body.length < plain.body.length / 2, 'compressed');
  assert.equal(gunzipSync(zipped.body), plain.body);
  assert.is.not(zipped.headers.etag, plain.headers.etag, 'each encoding has its own ETag');
});

const codingCases: Array<{ what: string; header: string | undefined; gzip: boolean }> = [
  { what: 'absent', header: undefined, gzip: false },
  { what: 'gzip', header: 'gzip', gzip: true },
  { what: 'a list', header: 'br, gzip, deflate', gzip: true },
  { what: 'br only', header: 'br', gzip: false },
  { what: 'q=0 refuses it', header: 'gzip;q=0', gzip: false },
  { what: 'q=0.5', header: 'gzip; q=0.5', gzip: true },
  { what: 'identity only', header: 'identity', gzip: false },
  { what: 'any', header: '*', gzip: true },
  { what: 'x-gzip', header: 'x-gzip', gzip: true },
  { what: 'refused by name beats any', header: 'gzip;q=0, *', gzip: false },
];

test('GET /api/svg_files is in gzip exactly when Accept-Encoding takes gzip, each coding with its ETag', async () => {
  const plain = await get('/api/svg_files');
  const zipped = await get('/api/svg_files', { 'Accept-Encoding': 'gzip' });
  for (const { what, header, gzip } of codingCases) {
    const answer = await get('/api/svg_files', header === undefined ? undefined : { 'Accept-Encoding': header });
    assert.is(answer.status, 200, what);
    assert.is(answer.headers['content-encoding'], gzip ? 'gzip' : undefined, what);
    assert.is(answer.headers.etag, (gzip ? zipped : plain).headers.etag, what);
    assert.is(answer.headers.vary, 'Accept-Encoding', what);
    assert.equal(gzip ? gunzipSync(answer.body) : answer.body, plain.body, what);
    // Each coding's ETag revalidates that coding only; a 304 has no Content-Encoding.
    const same = await get('/api/svg_files', { ...(header === undefined ? {} : { 'Accept-Encoding': header }), 'If-None-Match': String(answer.headers.etag) });
    assert.is(same.status, 304, what);
    assert.is(same.headers['content-encoding'], undefined, what);
    assert.is(same.headers.etag, answer.headers.etag, what);
    const other = await get('/api/svg_files', { ...(header === undefined ? {} : { 'Accept-Encoding': header }), 'If-None-Match': String((gzip ? plain : zipped).headers.etag) });
    assert.is(other.status, 200, what);
  }
});

test('/SF/{name} and /SF/{name}.svg give the same SVG with the icon headers', async () => {
  const bare = await get('/SF/home');
  const suffixed = await get('/SF/home.svg');
  for (const answer of [bare, suffixed]) {
    assert.is(answer.status, 200);
    assert.is(answer.headers['content-type'], 'image/svg+xml');
    assert.is(answer.headers['content-security-policy'], "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    assert.match(String(answer.headers['cache-control']), /max-age=\d+/);
    assert.is(answer.headers['x-content-type-options'], 'nosniff');
    assert.match(answer.text, /^<svg[\s>]/);
  }
  assert.equal(bare.body, suffixed.body);
  assert.is(bare.headers.etag, suffixed.headers.etag);
});

test('/SF/{name} default colour is black and fill="none" is kept', async () => {
  const answer = await get('/SF/home');
  assert.match(answer.text, /stroke="black"/);
  assert.match(answer.text, /fill="none"/);
  assert.not.match(answer.text, /currentColor/i);
});

test('/SF/{name}-filled serves the filled variant recoloured', async () => {
  const answer = await get('/SF/home-filled?color=red');
  assert.is(answer.status, 200);
  assert.match(answer.text, /<svg[^>]*\sfill="red"/);
  assert.not.match(answer.text, /currentColor/i);
});

const goodColors: Array<{ what: string; query: string; expected: string }> = [
  { what: 'a name', query: 'red', expected: 'red' },
  { what: 'a name in upper case', query: 'RED', expected: 'red' },
  { what: 'a long name', query: 'lightgoldenrodyellow', expected: 'lightgoldenrodyellow' },
  { what: 'transparent', query: 'transparent', expected: 'transparent' },
  { what: '%23 and 3 digits', query: '%23f00', expected: '#f00' },
  { what: '%23 and 4 digits', query: '%23f008', expected: '#f008' },
  { what: '%23 and 6 digits', query: '%23FF0000', expected: '#ff0000' },
  { what: '%23 and 8 digits', query: '%23ff000080', expected: '#ff000080' },
  { what: 'bare 3 digits', query: '0f0', expected: '#0f0' },
  { what: 'bare 4 digits', query: '0f08', expected: '#0f08' },
  { what: 'bare 6 digits', query: '00ff00', expected: '#00ff00' },
  { what: 'bare 8 digits', query: '00ff0080', expected: '#00ff0080' },
];

for (const { what, query, expected } of goodColors) {
  test(`/SF/{name}?color= accepts ${what}`, async () => {
    const answer = await get(`/SF/home?color=${query}`);
    assert.is(answer.status, 200);
    assert.ok(answer.text.includes(`stroke="${expected}"`), `stroke="${expected}" in ${answer.text.slice(0, 200)}`);
    assert.ok(answer.text.includes('fill="none"'), 'fill="none" kept');
  });
}

const badColors: Array<{ what: string; query: string }> = [
  { what: 'markup injection', query: encodeURIComponent('red"/><script>alert(1)</script>') },
  { what: 'javascript url', query: encodeURIComponent('url(javascript:x)') },
  { what: 'a CSS declaration', query: encodeURIComponent('red;background:url(x)') },
  { what: 'hex of 2 digits', query: '%2312' },
  { what: 'hex of 5 digits', query: '12345' },
  { what: 'rgb()', query: encodeURIComponent('rgb(1,2,3)') },
  { what: 'an unknown name', query: 'notacolor' },
  { what: 'currentColor', query: 'currentColor' },
  { what: 'a trailing space', query: 'red%20' },
  { what: 'a very long value', query: 'a'.repeat(2000) },
  { what: 'the parameter twice', query: 'red&color=blue' },
];

for (const { what, query } of badColors) {
  test(`/SF/{name}?color= refuses ${what} with 400 Invalid color`, async () => {
    for (const suffix of ['', '&png=true']) {
      const answer = await get(`/SF/home?color=${query}${suffix}`);
      assert.is(answer.status, 400);
      assert.match(String(answer.headers['content-type']), /^text\/plain/);
      assert.is(answer.text, 'Invalid color');
    }
  });
}

test('/SF/{name} unknown icon is 404 Icon not found, as text', async () => {
  for (const path of ['/SF/no-such-icon', '/SF/no-such-icon.svg', '/SF/HOME', '/SF/home.png', '/SF/no-such-icon?png=true']) {
    const answer = await get(path);
    assert.is(answer.status, 404, path);
    assert.match(String(answer.headers['content-type']), /^text\/plain/);
    assert.is(answer.text, 'Icon not found');
  }
});

const traversals = [
  '/SF/..%2F..%2Fetc%2Fpasswd',
  '/SF/..%2F..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd',
  '/SF/%2e%2e',
  '/SF/%2E%2E%2Fpackage.json',
  '/SF/..',
  '/SF/../../etc/passwd',
  '/SF/..%5C..%5Cwindows',
  '/SF/..%5c..%5cwindows%5cwin.ini',
  '/SF/%00',
  '/SF/home%00.svg',
  '/SF/home%2F..%2F..%2Fpackage.json',
  '/SF/outline%2Fhome',
  '/SF/%2Fetc%2Fpasswd',
  '/SF/a/b',
  '/SF/.svg',
];

for (const path of traversals) {
  test(`traversal attempt ${path} is 404 Icon not found, never a file`, async () => {
    const answer = await get(path);
    assert.is(answer.status, 404);
    assert.is(answer.text, 'Icon not found');
  });
}

test('/SF/ redirects to the search page', async () => {
  const answer = await get('/SF/');
  assert.is(answer.status, 301);
  assert.is(answer.headers.location, '/SF');
});

test('/SF/{name}?png=true gives a PNG 128 wide by default; png=1 and size set the width', async () => {
  const cases: Array<{ query: string; width: number }> = [
    { query: 'png=true', width: 128 },
    { query: 'png=1', width: 128 },
    { query: 'png=true&size=16', width: 16 },
    { query: 'png=true&size=300', width: 300 },
    { query: 'png=true&size=1024', width: 1024 },
  ];
  for (const { query, width } of cases) {
    const answer = await get(`/SF/home?${query}`);
    assert.is(answer.status, 200, query);
    assert.is(answer.headers['content-type'], 'image/png');
    const meta = await sharp(answer.body).metadata();
    assert.is(meta.format, 'png');
    assert.is(meta.width, width, query);
    assert.is(meta.height, width, `${query}: Tabler icons are square`);
  }
});

test('/SF/{name}?png=true draws in the requested colour', async () => {
  const answer = await get('/SF/square-filled?png=true&size=64&color=%2300ff00');
  assert.is(answer.status, 200);
  const { data, info } = await sharp(answer.body).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  let green = 0;
  let other = 0;
  for (let i = 0; i < data.length; i += info.channels) {
    const [r, g, b, a] = [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
    if (a < 250) continue;
    if (g > 240 && r < 15 && b < 15) green++;
    else other++;
  }
  assert.ok(green > 1000, `only ${green} green pixels`);
  assert.is(other, 0, 'every opaque pixel is the colour');
});

const badSizes = ['0', '15', '1025', '4096', 'abc', '12.5', '-20', '1e3', '0x20', '%2064', '64px', '64&size=65'];
for (const size of badSizes) {
  test(`/SF/{name}?png=true&size=${size} is 400 text`, async () => {
    const answer = await get(`/SF/home?png=true&size=${size}`);
    assert.is(answer.status, 400);
    assert.match(String(answer.headers['content-type']), /^text\/plain/);
    assert.match(answer.text, /^Invalid size/);
  });
}

test('/SF/{name}?png=yes is 400 text', async () => {
  const answer = await get('/SF/home?png=yes');
  assert.is(answer.status, 400);
  assert.match(answer.text, /^Invalid png/);
});

test('/SF/{name} ETag: 304 on If-None-Match, distinct per colour, format and size', async () => {
  const paths = ['/SF/home', '/SF/home?color=red', '/SF/home?png=true', '/SF/home?png=true&size=64', '/SF/home?png=true&color=red'];
  const etags = new Set<string>();
  for (const path of paths) {
    const first = await get(path);
    assert.is(first.status, 200);
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[^"]+"$/);
    etags.add(etag);
    const revalidated = await get(path, { 'If-None-Match': etag });
    assert.is(revalidated.status, 304, path);
    assert.is(revalidated.body.length, 0);
    assert.is(revalidated.headers.etag, etag);
    assert.ok(revalidated.headers['cache-control'], 'Cache-Control on 304');
    const weak = await get(path, { 'If-None-Match': `"other", W/${etag}` });
    assert.is(weak.status, 304, 'weak comparison');
    const stale = await get(path, { 'If-None-Match': '"stale"' });
    assert.is(stale.status, 200);
  }
  assert.is(etags.size, paths.length);
});

test('/SF/{name} HEAD answers headers only, with the GET length', async () => {
  for (const path of ['/SF/home?color=red', '/SF/home?png=true']) {
    const full = await get(path);
    const head = await call(server.url, path, { method: 'HEAD' });
    assert.is(head.status, 200);
    assert.is(head.body.length, 0);
    assert.is(head.headers['content-length'], String(full.body.length));
    assert.is(head.headers.etag, full.headers.etag);
    assert.is(head.headers['content-type'], full.headers['content-type']);
  }
});

test('/SF/{name} cache hit returns identical bytes, also for concurrent first requests', async () => {
  for (const path of ['/SF/star?color=gold', '/SF/star?png=true&size=200&color=gold']) {
    const answers = await Promise.all(Array.from({ length: 8 }, () => get(path)));
    const again = await get(path);
    for (const answer of [...answers, again]) {
      assert.is(answer.status, 200);
      assert.equal(answer.body, answers[0]!.body);
      assert.is(answer.headers.etag, answers[0]!.headers.etag);
    }
  }
});

test('/SF/{name} a burst of distinct PNG sizes all succeed', async () => {
  const sizes = Array.from({ length: 24 }, (_, i) => 100 + i);
  const answers = await Promise.all(sizes.map((size) => get(`/SF/bolt?png=1&size=${size}`)));
  for (const [i, answer] of answers.entries()) {
    assert.is(answer.status, 200);
    assert.is((await sharp(answer.body).metadata()).width, sizes[i]);
  }
});

test('POST /SF/{name} is 405 with Allow', async () => {
  const answer = await call(server.url, '/SF/home', { method: 'POST' });
  assert.is(answer.status, 405);
  assert.match(String(answer.headers.allow), /GET/);
});

test('GET /SF serves the search page with the HTML CSP and its own script', async () => {
  const page = await get('/SF');
  assert.is(page.status, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  const csp = String(page.headers['content-security-policy']);
  assert.match(csp, /script-src 'self'/);
  assert.not.match(csp, /unsafe-inline/);
  assert.match(page.text, /<script type="module" src="\/static\/sf\/sf\.js"><\/script>/);
  assert.not.match(page.text, /<script>(?!<\/script>)/, 'no inline script');
  for (const asset of ['/static/sf/sf.js', '/static/sf/sf.css']) {
    const answer = await get(asset);
    assert.is(answer.status, 200, asset);
    assert.ok(answer.headers.etag);
  }
  assert.match(String((await get('/static/sf/sf.js')).headers['content-type']), /javascript/);
  assert.is((await get('/static/sf/..%2F..%2Fpackage.json')).status, 404);
});


// The icon route remembers which render a request (name + raw query) resolved to,
// bounded by count and key length; answers must not depend on what it remembers.
test('remembered requests: repeats, long queries and a flood of distinct queries answer as the first time', async () => {
  const first = await get('/SF/home?color=red');
  const again = await get('/SF/home?color=red');
  assert.is(again.status, 200);
  assert.is(again.headers.etag, first.headers.etag);
  assert.ok(again.body.equals(first.body));
  const long = `/SF/home?color=red&pad=${'x'.repeat(RESOLVED_REQUEST_MAX_KEY_LENGTH)}`;
  for (let i = 0; i < 2; i++) assert.is((await get(long)).headers.etag, first.headers.etag);
  for (let i = 0; i < RESOLVED_REQUESTS_MAX_ENTRIES + 10; i += 1000) {
    assert.is((await get(`/SF/home?color=red&n=${i}`)).headers.etag, first.headers.etag);
  }
  assert.is((await get('/SF/home?color=%23zz')).status, 400, 'a bad colour is still refused after good ones');
  assert.is((await get('/SF/home?color=blue')).headers.etag === first.headers.etag, false);
});

test.run();
