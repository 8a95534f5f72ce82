// Real answers of both services, success and failure, checked against their
// OpenAPI documents: the status must be listed for the operation, the media type
// among that status's, and a JSON body must match its schema. Plus the validator's
// own rows, so a check that passes everything would fail here.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { IMGHOST_OPENAPI } from '../../src/services/imghost/openapi/document.js';
import { SITE_OPENAPI } from '../../src/services/site/openapi/document.js';
import { makePng } from '../fixtures/images/generate.js';
import { answerProblems, validate, type Json } from '../helpers/openapi.js';
import { closeTestSql, startTestImghost, startTestSite, testSql, type TestServer } from '../helpers/servers.js';
import { insertPlugin, insertRating, insertReply, testUser, type TestUser } from '../helpers/store-fixtures.js';
import { buildZip } from '../helpers/zip-writer.js';

let site: TestServer;
let imghost: TestServer;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;

test.before(async () => {
  imghost = await startTestImghost();
  site = await startTestSite({ IMAGE_HOST_URL: imghost.url });
  const sql = testSql();
  alice = await testUser(sql, 'oa-alice');
  bob = await testUser(sql, 'oa-bob');
  admin = await testUser(sql, 'oa-root', { admin: true });
  await insertPlugin(sql, 'oa-approved', alice, 'approved', { sha256: 'ab'.repeat(32) });
  await insertPlugin(sql, 'oa-pending', alice, 'pending');
  await insertRating(sql, 'oa-approved', bob, 4, 'nice');
  await insertReply(sql, 'oa-approved', bob, alice, 'thanks');
});
test.after(async () => {
  await site.close();
  await imghost.close();
  await closeTestSql();
});

interface Call {
  method?: string;
  path: string;
  cookie?: TestUser;
  token?: string;
  json?: unknown;
  /** A raw body with its own Content-Type. */
  raw?: { body: BodyInit; type?: string };
  status: number;
}

async function check(base: string, doc: Json, calls: Call[]): Promise<string[]> {
  const problems: string[] = [];
  for (const call of calls) {
    const method = call.method ?? 'GET';
    const headers: Record<string, string> = {};
    if (call.cookie) headers.cookie = call.cookie.cookie;
    if (call.token) headers.authorization = `Bearer ${call.token}`;
    let body: BodyInit | undefined;
    if (call.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = typeof call.json === 'string' ? call.json : JSON.stringify(call.json);
    } else if (call.raw) {
      body = call.raw.body;
      if (call.raw.type) headers['content-type'] = call.raw.type;
    }
    const answer = await fetch(base + call.path, { method, headers, body, redirect: 'manual' });
    const text = await answer.text();
    if (answer.status !== call.status) problems.push(`${method} ${call.path}: status ${answer.status}, expected ${call.status} (${text.slice(0, 200)})`);
    problems.push(...answerProblems(doc, method, call.path, answer.status, answer.headers.get('content-type'), text));
  }
  return problems;
}

const png = async (seed: number) => {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(await makePng(seed))]), 'shot.png');
  return form;
};

test('site: answers of every route match /openapi.json', async () => {
  const tokenAnswer = await fetch(site.url + '/apps/api/tokens', {
    method: 'POST',
    headers: { cookie: alice.cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'openapi', scopes: ['plugins:write', 'media:upload'] }),
  });
  const { token, secret } = (await tokenAnswer.json()) as Json;
  const plugin = { id: 'oa-new', name: 'New', version: '1.0.0', download: 'https://example.com/oa-new.zip' };
  const calls: Call[] = [
    { path: '/healthz', status: 200 },
    { path: '/readyz', status: 200 },
    { path: '/openapi.json', status: 200 },
    { path: '/metrics', status: 404 },
    { path: '/api/info', status: 500 },
    { path: '/api/fastdownload', status: 200 },
    { path: '/apps/auth/login?return_to=/apps/', status: 404 },
    { path: '/apps/auth/callback?code=x&state=y', status: 404 },
    { method: 'POST', path: '/apps/auth/password', json: { username: 'nobody', password: 'wrong-password' }, status: 401 },
    { method: 'POST', path: '/apps/auth/password', json: '{not json', status: 400 },
    { method: 'POST', path: '/apps/auth/password', raw: { body: 'x', type: 'text/plain' }, status: 415 },
    { path: '/apps/api/me', status: 200 },
    { path: '/apps/api/me', cookie: alice, status: 200 },
    { path: '/apps/api/me', token: secret, status: 403 },
    { path: '/apps/api/plugins', status: 200 },
    { path: '/apps/api/plugins?scope=mine', cookie: alice, status: 200 },
    { path: '/apps/api/plugins?scope=admin', status: 401 },
    { path: '/apps/api/plugins?scope=admin', cookie: bob, status: 403 },
    { path: '/apps/api/plugins?limit=0', status: 400 },
    { method: 'POST', path: '/apps/api/plugins', json: plugin, token: secret, status: 201 },
    { method: 'POST', path: '/apps/api/plugins', json: plugin, cookie: alice, status: 409 },
    { method: 'POST', path: '/apps/api/plugins', json: { ...plugin, id: 'x' }, cookie: alice, status: 400 },
    { method: 'POST', path: '/apps/api/plugins', json: plugin, status: 401 },
    { method: 'POST', path: '/apps/api/plugins', json: plugin, token: 'lwt_bad', status: 401 },
    { path: '/apps/api/plugins/oa-approved?include=related', status: 200 },
    { path: '/apps/api/plugins/oa-approved/stats?days=90', status: 200 },
    { path: '/apps/api/stats/installs?ids=oa-approved,oa-pending&days=30', cookie: alice, status: 200 },
    { path: '/apps/api/stats/installs', status: 400 },
    { path: '/apps/api/audit', status: 401 },
    { path: '/apps/api/audit?limit=0', cookie: alice, status: 403 },
    { path: '/apps/api/audit?plugin=oa-approved', cookie: admin, status: 200 },
    { path: '/apps/api/audit?limit=0', cookie: admin, status: 400 },
    { method: 'POST', path: '/apps/api/reports', json: { target: { type: 'plugin', plugin: 'oa-approved' }, reason: 'spam', note: 'x' }, cookie: bob, status: 201 },
    { method: 'POST', path: '/apps/api/reports', json: { target: { type: 'plugin', plugin: 'oa-approved' }, reason: 'spam' }, cookie: bob, status: 409 },
    { method: 'POST', path: '/apps/api/reports', json: { reason: 'spam' }, cookie: bob, status: 400 },
    { path: '/apps/api/reports?status=open', cookie: admin, status: 200 },
    { path: '/apps/api/notifications', cookie: alice, status: 200 },
    { path: '/apps/api/notifications', status: 401 },
    { method: 'POST', path: '/apps/api/notifications/read', json: { all: true }, cookie: alice, status: 200 },
    { method: 'POST', path: '/apps/api/notifications/read', json: { ids: ['x'] }, cookie: alice, status: 400 },
    { path: '/apps/api/reports', cookie: bob, status: 403 },
    { method: 'POST', path: '/apps/api/reports/999999/resolve', json: { action: 'dismiss' }, cookie: admin, status: 404 },
    { method: 'POST', path: '/apps/api/plugins/oa-approved/ratings/oa-nobody/unhide', cookie: admin, status: 404 },
    { path: '/apps/api/plugins/oa-approved/stats?days=7', status: 400 },
    { path: '/apps/api/plugins/oa-approved', cookie: alice, status: 200 },
    { path: '/apps/api/plugins/oa-pending', status: 404 },
    { method: 'PATCH', path: '/apps/api/plugins/oa-approved', json: { version: '1.1.0' }, token: secret, status: 200 },
    { method: 'PATCH', path: '/apps/api/plugins/oa-approved', json: { version: '' }, cookie: alice, status: 400 },
    { method: 'PATCH', path: '/apps/api/plugins/oa-approved', json: { version: '2' }, cookie: bob, status: 403 },
    { method: 'POST', path: '/apps/api/plugins/oa-approved/review', json: { action: 'approve' }, token: secret, status: 403 },
    { method: 'POST', path: '/apps/api/plugins/oa-approved/review', json: { action: 'approve' }, cookie: alice, status: 403 },
    { method: 'POST', path: '/apps/api/plugins/oa-approved/review', json: { action: 'approve', revision: 'stale' }, cookie: admin, status: 409 },
    { method: 'POST', path: '/apps/api/plugins/oa-approved/review', json: { action: 'unlist' }, cookie: admin, status: 400 },
    { method: 'POST', path: '/apps/api/plugins/oa-approved/review', json: { action: 'approve' }, cookie: admin, status: 200 },
    { method: 'POST', path: '/apps/api/plugins/oa-approved/review', json: { action: 'approve' }, cookie: admin, status: 409 },
    { path: '/apps/api/plugins/oa-approved/install-link', status: 200 },
    { path: '/apps/api/plugins/oa-missing/install-link', status: 404 },
    { path: '/apps/api/plugins/oa-approved/manifest.json', status: 200 },
    { method: 'POST', path: '/apps/api/plugins/oa-approved/install-click', status: 200 },
    { path: '/apps/api/plugins/oa-approved/ratings', status: 200 },
    { path: '/apps/api/plugins/oa-approved/ratings', cookie: bob, status: 200 },
    { path: '/apps/api/plugins/oa-approved/ratings?limit=0', status: 400 },
    { method: 'PUT', path: '/apps/api/plugins/oa-approved/ratings', json: { stars: 5, comment: 'great' }, cookie: admin, status: 200 },
    { method: 'PUT', path: '/apps/api/plugins/oa-approved/ratings', json: { stars: 9 }, cookie: admin, status: 400 },
    { method: 'PUT', path: '/apps/api/plugins/oa-approved/ratings', json: { stars: 5 }, token: secret, status: 403 },
    { method: 'POST', path: '/apps/api/plugins/oa-approved/ratings/oa-bob/replies', json: { body: 'hello' }, cookie: admin, status: 201 },
    { method: 'POST', path: '/apps/api/plugins/oa-approved/ratings/nobody/replies', json: { body: 'hello' }, cookie: admin, status: 404 },
    { method: 'DELETE', path: '/apps/api/plugins/oa-approved/ratings/replies/999999', cookie: admin, status: 404 },
    { method: 'DELETE', path: '/apps/api/plugins/oa-approved/ratings', cookie: admin, status: 200 },
    { method: 'POST', path: '/apps/api/media/upload', raw: { body: await png(1) }, token: secret, status: 200 },
    { method: 'POST', path: '/apps/api/media/upload', raw: { body: await png(2) }, status: 401 },
    { method: 'POST', path: '/apps/api/media/upload', raw: { body: 'x', type: 'text/plain' }, cookie: alice, status: 400 },
    { path: '/apps/api/tokens', cookie: alice, status: 200 },
    { method: 'POST', path: '/apps/api/tokens', json: { name: 'x', scopes: [] }, cookie: alice, status: 400 },
    { method: 'DELETE', path: `/apps/api/tokens/${token.id}`, cookie: bob, status: 404 },
    { method: 'DELETE', path: `/apps/api/tokens/${token.id}`, cookie: alice, status: 200 },
    { path: '/', status: 200 },
    { path: '/apps', status: 301 },
    { path: '/apps/', status: 200 },
    { path: '/apps/plugin/oa-approved', status: 200 },
    { path: '/apps/plugin/oa-pending', status: 404 },
    { path: '/apps/submit', status: 200 },
    { path: '/apps/edit/oa-approved', status: 200 },
    { path: '/apps/mine', status: 200 },
    { path: '/apps/review', status: 200 },
    { path: '/apps/tokens', status: 200 },
    { path: '/static/no-such-file.js', status: 404 },
  ];
  assert.equal(await check(site.url, SITE_OPENAPI, calls), []);
});

test('image host: answers of every route match /openapi.json', async () => {
  const uploaded = (await (await fetch(imghost.url + '/api/upload', { method: 'POST', body: await png(3) })).json()) as Json;
  const { url, webpUrl } = uploaded.data;
  const noFile = new FormData();
  noFile.append('other', 'x');
  const calls: Call[] = [
    { path: '/healthz', status: 200 },
    { path: '/readyz', status: 200 },
    { path: '/openapi.json', status: 200 },
    { path: '/metrics', status: 404 },
    { method: 'POST', path: '/api/upload', raw: { body: await png(4) }, status: 200 },
    { method: 'POST', path: '/api/upload', raw: { body: noFile }, status: 400 },
    { method: 'POST', path: '/api/upload', raw: { body: 'x', type: 'text/plain' }, status: 400 },
    { path: url, status: 200 },
    { path: webpUrl, status: 200 },
    { path: '/img/1/' + '0'.repeat(32), status: 404 },
    { path: '/img/1/NOT-HEX', status: 404 },
    { path: '/img/only-one-segment', status: 404 },
    { path: '/SF', status: 200 },
    { path: '/SF/house', status: 200 },
    { path: '/SF/house?png=1&size=32', status: 200 },
    { path: '/SF/house?color=notacolour', status: 400 },
    { path: '/SF/no-such-icon-here', status: 404 },
    { path: '/SFs/no-such-icon-here.svg', status: 404 },
    { path: '/api/svg_files', status: 200 },
    { path: '/api/svg_aliases', status: 200 },
    { path: '/static/sf/no-such-asset.js', status: 404 },
    { method: 'POST', path: '/api/packages', raw: { body: new Uint8Array(packageWithFindings()), type: 'application/zip' }, status: 201 },
    { method: 'POST', path: '/api/packages', raw: { body: new Uint8Array(buildZip([{ name: 'main.py', data: Buffer.from('print(1)') }])), type: 'application/zip' }, status: 201 },
    { method: 'POST', path: '/api/packages', raw: { body: 'not a zip', type: 'application/zip' }, status: 400 },
  ];
  assert.equal(await check(imghost.url, IMGHOST_OPENAPI, calls), []);
});

/** A manifest in a folder, an ELF program and a GitHub token: every branch of the package answer's schema. */
function packageWithFindings(): Buffer {
  return buildZip([
    { name: 'Demo/plugin.json', data: Buffer.from('{"id":"demo","name":"Demo","version":"1.0.0"}') },
    { name: 'Demo/main', data: Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), Buffer.alloc(100, 1)]), method: 0 },
    { name: 'Demo/.env', data: Buffer.from(`GITHUB_TOKEN=ghp_${'a1B2c3D4e5F6'.repeat(3)}\n`) },
  ]);
}

// The validator itself: each row a value that must pass or fail its schema.
const doc = { components: { schemas: { N: { type: 'integer', minimum: 1 } } } };
const rows: Array<{ what: string; schema: Json; value: unknown; ok: boolean }> = [
  { what: 'type matches', schema: { type: 'string' }, value: 'x', ok: true },
  { what: 'type differs', schema: { type: 'string' }, value: 1, ok: false },
  { what: 'integer is a number', schema: { type: 'number' }, value: 2, ok: true },
  { what: 'fraction is not an integer', schema: { type: 'integer' }, value: 2.5, ok: false },
  { what: 'required missing', schema: { type: 'object', required: ['a'] }, value: {}, ok: false },
  { what: 'additionalProperties false', schema: { type: 'object', additionalProperties: false, properties: { a: {} } }, value: { a: 1, secret: 'x' }, ok: false },
  { what: 'enum miss', schema: { enum: ['a', 'b'] }, value: 'c', ok: false },
  { what: 'const hit', schema: { const: true }, value: true, ok: true },
  { what: 'anyOf null', schema: { anyOf: [{ type: 'string' }, { type: 'null' }] }, value: null, ok: true },
  { what: 'anyOf none', schema: { anyOf: [{ type: 'string' }, { type: 'null' }] }, value: 3, ok: false },
  { what: 'allOf one fails', schema: { allOf: [{ type: 'object' }, { required: ['code'] }] }, value: {}, ok: false },
  { what: '$ref followed', schema: { $ref: '#/components/schemas/N' }, value: 0, ok: false },
  { what: 'pattern', schema: { type: 'string', pattern: '^lwt_' }, value: 'abc', ok: false },
  { what: 'date-time', schema: { type: 'string', format: 'date-time' }, value: 'yesterday', ok: false },
  { what: 'items checked', schema: { type: 'array', items: { type: 'integer' } }, value: [1, 'x'], ok: false },
  { what: 'maxLength in code points', schema: { type: 'string', maxLength: 2 }, value: '😀😀', ok: true },
  { what: 'unknown keyword refused', schema: { oneOf: [] }, value: 1, ok: false },
];
for (const row of rows) {
  test(`validator: ${row.what}`, () => {
    assert.is(validate(doc, row.schema, row.value).length === 0, row.ok, JSON.stringify(validate(doc, row.schema, row.value)));
  });
}

test('answerProblems: an undocumented status, media type or body shape is a problem', () => {
  assert.ok(answerProblems(SITE_OPENAPI, 'GET', '/apps/api/tokens', 418, 'application/json', '{}').length > 0);
  assert.ok(answerProblems(SITE_OPENAPI, 'GET', '/apps/api/tokens', 200, 'text/html', '<p>').length > 0);
  assert.ok(answerProblems(SITE_OPENAPI, 'GET', '/apps/api/tokens', 200, 'application/json', '{"success":true}').length > 0);
  assert.ok(answerProblems(SITE_OPENAPI, 'GET', '/no/such/route', 200, 'application/json', '{}').length > 0);
  assert.equal(answerProblems(SITE_OPENAPI, 'GET', '/apps/api/tokens', 200, 'application/json; charset=utf-8', '{"success":true,"tokens":[]}'), []);
});

test.run();
