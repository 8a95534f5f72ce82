// POST /apps/api/updates (issue 19): a launcher's installed plugins in, the ones
// with another live version out, in one call.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../../src/db/pool.js';
import { insertPlugin, type TestUser } from '../../../helpers/store-fixtures.js';
import type { TestServer } from '../../../helpers/servers.js';
import { startStoreSite } from '../../../helpers/store-site.js';
import type { StoreClient } from '../store-client.js';

let site: TestServer, client: StoreClient, sql: Sql;
let author: TestUser, closeStore: () => Promise<void>;

const PLUGINS = 500;
const id = (n: number) => `upd-${String(n).padStart(3, '0')}`;
const hash = (n: number, v: number) => (n * 10 + v).toString(16).padStart(64, '0');

test.before(async () => {
  ({ site, client, sql, author, close: closeStore } = await startStoreSite('upd', { settings: { TRUST_PROXY: 'true' } }));
  // 500 approved plugins live at version 2 (hash 2); a hosted version row for the even ones.
  for (let n = 0; n < PLUGINS; n++) {
    await insertPlugin(sql, id(n), author, 'approved', { version: '2.0.0', sha256: hash(n, 2), download: `https://downloads.example.com/${id(n)}-2.zip` });
  }
  const hosted = Array.from({ length: PLUGINS / 2 }, (_, k) => 2 * k);
  await sql`
    insert into plugin_versions (plugin_id, version, changelog, sha256, size, download, entry_count, files, status)
    select 'upd-' || lpad(n::text, 3, '0'), '2.0.0', 'Changes of ' || n, lpad(to_hex(n * 10 + 2), 64, '0'), 1000 + n,
           'https://downloads.example.com/upd-' || lpad(n::text, 3, '0') || '-2.zip', 1, '[]', 'approved'
      from unnest(${hosted}::int[]) as n`;
  await insertPlugin(sql, 'upd-hidden', author, 'pending', { version: '9.0.0' });
});
test.after(() => closeStore());

let address = 0;
/** Each call from its own address: the limit (60 a minute) is per address. */
const check = (body: unknown, ip = `10.9.${Math.floor(++address / 250)}.${address % 250}`) => client.post('/apps/api/updates', body, { ip });

test('500 installed plugins by version: the older half is listed, with the live file and install link', async () => {
  const plugins = Array.from({ length: PLUGINS }, (_, n) => ({ id: id(n), version: n % 2 === 0 ? '2.0.0' : '1.0.0' }));
  const answer = await check({ plugins });
  assert.is(answer.status, 200, JSON.stringify(answer.body).slice(0, 300));
  assert.is(answer.headers.get('access-control-allow-origin'), '*');
  assert.is(answer.headers.get('cache-control'), 'no-store', 'once');
  assert.equal(answer.body.unknown, []);
  assert.is(answer.body.updates.length, PLUGINS / 2);
  const first = answer.body.updates[0];
  assert.equal(first, {
    id: 'upd-001',
    installed: { version: '1.0.0', sha256: null },
    latest: {
      version: '2.0.0',
      sha256: hash(1, 2),
      size: null,
      download: 'https://downloads.example.com/upd-001-2.zip',
      install_url: `bloret://plugin/install?download=${encodeURIComponent('https://downloads.example.com/upd-001-2.zip')}&id=upd-001&source=store&sha256=${hash(1, 2)}`,
      changelog: null,
    },
  });
});

test('500 installed plugins by hash: a hosted live version brings its size and changelog', async () => {
  const plugins = Array.from({ length: PLUGINS }, (_, n) => ({ id: id(n), version: '2.0.0', sha256: n % 4 === 0 ? hash(n, 1) : hash(n, 2).toUpperCase() }));
  const answer = await check({ plugins });
  assert.is(answer.status, 200);
  assert.equal(answer.body.updates.map((u: any) => u.id), Array.from({ length: PLUGINS / 4 }, (_, k) => id(4 * k)), 'the hash decides, whatever the number says');
  const four = answer.body.updates[1];
  assert.equal([four.latest.size, four.latest.changelog, four.installed.sha256], [1004, 'Changes of 4', hash(4, 1)]);
});

test('the kept answer in each coding a launcher asks for: the same JSON, the CORS and no-store headers on each', async () => {
  const body = Buffer.from(JSON.stringify({ plugins: Array.from({ length: 100 }, (_, n) => ({ id: id(n), version: '1.0.0' })) }));
  const cases = [
    { what: 'Python requests', acceptEncoding: 'gzip, deflate', coding: 'gzip' },
    { what: 'Dart http', acceptEncoding: 'gzip', coding: 'gzip' },
    { what: 'a browser', acceptEncoding: 'gzip, deflate, br', coding: 'br' },
    { what: 'none asked', acceptEncoding: undefined, coding: undefined },
  ];
  let json: unknown;
  for (const c of cases) {
    const answer = await rawPost('/apps/api/updates', body, { 'x-forwarded-for': `10.8.0.${++address % 250}`, ...(c.acceptEncoding ? { 'accept-encoding': c.acceptEncoding } : {}) });
    assert.is(answer.status, 200, c.what);
    assert.is(answer.headers['content-encoding'], c.coding, c.what);
    assert.is(answer.headers['access-control-allow-origin'], '*', c.what);
    assert.is(answer.headers['cache-control'], 'no-store', c.what);
    assert.is(answer.headers.vary, 'Accept-Encoding', c.what);
    const text = (c.coding === 'gzip' ? gunzipSync(answer.bytes) : c.coding === 'br' ? brotliDecompressSync(answer.bytes) : answer.bytes).toString();
    json ??= JSON.parse(text);
    assert.equal(JSON.parse(text), json, c.what);
  }
  assert.is((json as { updates: unknown[] }).updates.length, 100);
});

/** A POST through node:http, which neither asks for nor decodes a coding by itself (fetch does both). */
function rawPost(path: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(site.url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('hidden and unknown plugins are unknown; ids are found in any case', async () => {
  const answer = await check({ plugins: [{ id: 'upd-hidden', version: '1' }, { id: 'no-such-plugin', version: '1' }, { id: 'UPD-003', version: '1' }, { id: '../x', sha256: 'a'.repeat(64) }] });
  assert.is(answer.status, 200);
  assert.equal(answer.body.unknown.sort(), ['../x', 'no-such-plugin', 'upd-hidden']);
  assert.equal(answer.body.updates.map((u: any) => u.id), ['upd-003']);
});

test('an entry with neither version nor sha256 (only the id is known) is answered with the live version', async () => {
  const answer = await check({ plugins: [{ id: 'upd-001' }, { id: 'no-such-plugin' }] });
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body.unknown, ['no-such-plugin']);
  assert.equal(answer.body.updates.map((u: any) => [u.id, u.installed, u.latest.version]), [['upd-001', { version: null, sha256: null }, '2.0.0']]);
});

test('malformed requests are 400 VALIDATION_FAILED, readable from any origin', async () => {
  const cases: Array<{ what: string; body: unknown }> = [
    { what: 'no plugins', body: {} },
    { what: 'empty list', body: { plugins: [] } },
    { what: '501 entries', body: { plugins: Array.from({ length: 501 }, (_, n) => ({ id: id(n % PLUGINS), version: '1' })) } },
    { what: 'id not a string', body: { plugins: [{ id: 5, version: '1' }] } },
    { what: 'the body null', body: null },
    { what: 'the body a list', body: [{ id: 'upd-001', version: '1' }] },
    { what: 'bad hash', body: { plugins: [{ id: 'upd-001', sha256: 'xyz' }] } },
    { what: 'entry not an object', body: { plugins: ['upd-001'] } },
  ];
  for (const { what, body } of cases) {
    const answer = await check(body);
    assert.is(answer.status, 400, what);
    assert.is(answer.body.code, 'VALIDATION_FAILED', what);
    assert.is(answer.headers.get('access-control-allow-origin'), '*', what);
  }
  const preflight = await fetch(`${site.url}/apps/api/updates`, { method: 'OPTIONS', headers: { origin: 'https://other.example', 'access-control-request-method': 'POST' } });
  assert.is(preflight.status, 204);
  assert.is(preflight.headers.get('access-control-allow-origin'), '*');
});

test('a valid request of 500 entries with long ids and hashes is answered, not refused as too large', async () => {
  const long = (n: number) => `${'x'.repeat(120)}-${String(n).padStart(3, '0')}`;
  const plugins = Array.from({ length: 500 }, (_, n) => ({ id: long(n), version: 'v'.repeat(64), sha256: 'f'.repeat(64) }));
  assert.ok(JSON.stringify({ plugins }).length > 128 * 1024);
  const answer = await check({ plugins });
  assert.is(answer.status, 200, JSON.stringify(answer.body).slice(0, 200));
  assert.is(answer.body.unknown.length, 500);
});

test('one address is limited (429 RATE_LIMITED with Retry-After)', async () => {
  const body = { plugins: [{ id: 'upd-001', version: '2.0.0' }] };
  let last;
  for (let i = 0; i < 61; i++) last = await check(body, '10.200.0.1');
  assert.is(last!.status, 429);
  assert.is(last!.body.code, 'RATE_LIMITED');
  assert.ok(Number(last!.headers.get('retry-after')) >= 1);
});

test('an answer follows the store at once (kept per generation)', async () => {
  const body = { plugins: [{ id: 'upd-005', version: '2.0.0' }] };
  assert.equal((await check(body)).body.updates, []);
  await sql`update plugins set version = '3.0.0', sha256 = ${hash(5, 3)} where id = 'upd-005'`;
  assert.equal((await check(body)).body.updates.map((u: any) => u.latest.version), ['3.0.0']);
});

test.run();
