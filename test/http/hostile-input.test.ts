// Regression net: whatever a client sends to any route of either service, the
// answer is a defined 4xx (or 2xx/3xx), never a 500 or a dropped connection.
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../src/lib/project-root.js';
import { rawRequest } from '../helpers/raw-http.js';
import { closeTestSql, startTestImghost, startTestSite, type TestServer } from '../helpers/servers.js';

let site: TestServer;
let imghost: TestServer;

test.before(async () => {
  site = await startTestSite({
    // With no launcher file /api/info is a 500 by contract; give it one.
    LAUNCHER_CONFIG: join(projectRoot(), 'config', 'launcher.example.json'),
    OAUTH_AUTHORIZE_URL: 'http://127.0.0.1:1/authorize',
    OAUTH_TOKEN_URL: 'http://127.0.0.1:1/token',
    OAUTH_USERINFO_URL: 'http://127.0.0.1:1/userinfo',
    OAUTH_CLIENT_ID: 'client',
    OAUTH_CLIENT_SECRET: 'secret',
  });
  imghost = await startTestImghost();
});

test.after(async () => {
  await site.close();
  await imghost.close();
  await closeTestSql();
});

const sitePaths = [
  '/api/info', '/api/fastdownload', '/apps/api/me', '/apps/auth/login', '/apps/auth/callback',
  '/apps/auth/logout', '/apps/auth/password', '/healthz', '/readyz', '/static/x',
];
const imghostPaths = ['/api/upload', '/api/svg_files', '/api/svg_aliases', '/SF', '/SF/star', '/SF/building.2', '/SFs/star.svg', '/SFs/house.svg', '/img/1/0123456789abcdef0123456789abcdef', '/healthz'];

const queries = ['', '?', '?%', '?a=%E0%A4%A', '?return_to=%00', '?code=&state=', '?color=%ZZ&png=%', '?size=1e400', '?error=%FF', '?x=' + 'y'.repeat(4000)];
const headerSets: Array<{ what: string; headers: Record<string, string> }> = [
  { what: 'no headers', headers: {} },
  { what: 'garbage cookie', headers: { cookie: 'sid=%%%; lw_login=%E0%A4%A; ;;=;' } },
  { what: 'long cookie', headers: { cookie: 'sid=' + 'a'.repeat(7000) } },
  { what: 'cookie and foreign origin', headers: { cookie: 'sid=abc', origin: 'https://evil.example' } },
  { what: 'odd content type', headers: { 'content-type': 'multipart/form-data; boundary="unterminated' } },
  { what: 'json type', headers: { 'content-type': 'application/json' } },
  { what: 'if-none-match junk', headers: { 'if-none-match': '"x, W/, *,"' } },
  { what: 'forwarded junk', headers: { 'x-forwarded-for': '<script>', authorization: 'Bearer' } },
];
const bodies = ['', '{', '[]', 'null', '{"username":{},"password":[]}', '--x\r\n\r\n'];

async function probe(base: string, paths: string[]) {
  const failures: string[] = [];
  for (const path of paths) {
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE']) {
      for (const query of queries) {
        for (const set of headerSets) {
          const body = method === 'GET' || method === 'HEAD' ? undefined : bodies[(path.length + query.length) % bodies.length];
          const res = await rawRequest(base, method, path + query, { headers: set.headers, body }).catch((error: Error) => ({
            status: -1,
            body: error.message,
            headers: {},
          }));
          const allowed = res.status > 0 && (res.status < 500 || res.status === 502 || res.status === 503);
          if (!allowed) failures.push(`${method} ${path}${query.slice(0, 40)} [${set.what}] → ${res.status} ${res.body.slice(0, 120)}`);
        }
      }
    }
  }
  return failures;
}

test('site: no hostile request gets a 500', async () => {
  const failures = await probe(site.url, sitePaths);
  assert.equal(failures, []);
});

test('image host: no hostile request gets a 500', async () => {
  const failures = await probe(imghost.url, imghostPaths);
  assert.equal(failures, []);
});

test.run();
