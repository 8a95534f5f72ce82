import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../src/http/app.js';
import { silentLogger } from '../../src/lib/log.js';
import { listen, type RunningServer } from '../../src/http/server.js';
import { loadStaticFolder, staticHandler } from '../../src/http/static-files.js';
import { renderSiteError } from '../../src/services/site/errors.js';
import { rawRequest } from '../helpers/raw-http.js';
import { tempDir } from '../helpers/servers.js';

let server: RunningServer;
const outside = tempDir('lw-outside-');

test.before(async () => {
  const root = tempDir('lw-static-');
  mkdirSync(join(root, 'css'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>x</title>');
  writeFileSync(join(root, 'css', 'app.css'), 'body{}');
  writeFileSync(join(root, 'app.js'), 'console.log(1)');
  writeFileSync(join(root, '.secret'), 'hidden');
  writeFileSync(join(outside, 'passwd'), 'root:x:0:0');
  const files = loadStaticFolder(root);
  const handler = createApp<any>({
    name: 'static-test',
    log: silentLogger,
    trustProxy: false,
    createLocals: () => ({}),
    renderError: renderSiteError,
    routes: [{ method: 'GET', path: '/static/*', handler: staticHandler(files) }],
  });
  server = await listen(handler, '127.0.0.1', 0);
});

test.after(() => server.close(500));

const served = [
  { what: 'css', path: '/static/css/app.css', type: 'text/css; charset=utf-8', body: 'body{}' },
  { what: 'javascript', path: '/static/app.js', type: 'text/javascript; charset=utf-8', body: 'console.log(1)' },
  { what: 'index.html for the folder', path: '/static/', type: 'text/html; charset=utf-8', body: '<!doctype html><title>x</title>' },
];
for (const c of served) {
  test(`serves ${c.what} with type and ETag`, async () => {
    const res = await rawRequest(server.url, 'GET', c.path);
    assert.is(res.status, 200);
    assert.is(res.headers['content-type'], c.type);
    assert.is(res.body, c.body);
    assert.ok(res.headers.etag);
    const again = await rawRequest(server.url, 'GET', c.path, { headers: { 'if-none-match': String(res.headers.etag) } });
    assert.is(again.status, 304);
    assert.is(again.body, '');
  });
}

test('HTML carries a CSP', async () => {
  const res = await rawRequest(server.url, 'GET', '/static/index.html');
  assert.match(String(res.headers['content-security-policy']), /default-src 'self'/);
  assert.is(res.headers['x-content-type-options'], 'nosniff');
});

const escapes = [
  '/static/../package.json',
  '/static/%2e%2e/package.json',
  '/static/%2E%2E%2Fpackage.json',
  '/static/css/..%2f..%2fpackage.json',
  '/static/..%5c..%5cpackage.json',
  '/static/css%5c..%5capp.css',
  '/static/app.js%00.css',
  '/static/.secret',
  '/static/./app.js',
  '/static//etc/passwd',
  `/static/${encodeURIComponent(join(outside, 'passwd'))}`,
  '/static/nothing.css',
];
for (const path of escapes) {
  test(`no way out of the folder: ${path}`, async () => {
    const res = await rawRequest(server.url, 'GET', path);
    assert.ok(res.status === 404 || res.status === 400, `status ${res.status}`);
    assert.not.ok(res.body.includes('root:x'), 'leaked a file');
    assert.not.ok(res.body.includes('"name"'), 'leaked package.json');
    assert.is(JSON.parse(res.body).success, false);
  });
}

test('a missing static folder serves nothing instead of failing start-up (regression: empty folder not in git)', () => {
  assert.is(loadStaticFolder(join(outside, 'no-such-folder')).size, 0);
});

test.run();
