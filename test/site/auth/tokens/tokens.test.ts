// Personal API tokens over HTTP against the real site: the lifecycle (create, list,
// use, revoke, expiry), what a token may reach (plugins:write, media:upload) and
// what it may not (everything else: 403), and how it sits beside the cookie.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_LIVE_TOKENS, TOKEN_REQUESTS_PER_WINDOW } from '../../../../src/services/site/auth/tokens/limits.js';
import { testSessionCookie } from '../../../helpers/fake-idp.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../../helpers/servers.js';
import { newPlugin, pluginIn, storeClient, storeUsers, type Users } from '../../store/store-client.js';
import { expireToken, newToken, tokenClient, type TokenClient } from './token-client.js';

let site: TestServer;
let request: TokenClient;
let users: Users;

test.before(async () => {
  site = await startTestSite();
  request = tokenClient(site.url);
  users = await storeUsers(testSql());
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DAY_MS = 24 * 60 * 60 * 1000;
const TOKEN_KEYS = ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'prefix', 'scopes'];

test('POST /apps/api/tokens: 201 {success, token, secret}; secret lwt_ + 256 bits, shown once, stored as SHA-256 only', async () => {
  const before = Date.now();
  const answer = await request('POST', '/apps/api/tokens', { cookie: users.alice }, { name: ' release job ', scopes: ['media:upload', 'plugins:write'], expiresInDays: 30 });
  assert.is(answer.status, 201, JSON.stringify(answer.body));
  assert.is(answer.body.success, true);
  assert.is(answer.headers.get('cache-control'), 'no-store');
  const { token, secret } = answer.body;
  assert.match(secret, /^lwt_[A-Za-z0-9_-]{43}$/);
  assert.equal(Object.keys(token).sort(), TOKEN_KEYS);
  assert.is(token.name, 'release job');
  assert.equal(token.scopes, ['plugins:write', 'media:upload']);
  assert.ok(secret.startsWith(token.prefix) && token.prefix.length < 16, token.prefix);
  assert.match(token.createdAt, ISO);
  assert.is(token.lastUsedAt, null);
  const lifetime = Date.parse(token.expiresAt) - before;
  assert.ok(Math.abs(lifetime - 30 * DAY_MS) < 60_000, `expires in ${lifetime} ms`);

  const [row] = await testSql()<Array<{ hash: string }>>`select encode(token_hash, 'hex') as hash from api_tokens where id = ${token.id}`;
  const { createHash } = await import('node:crypto');
  assert.is(row!.hash, createHash('sha256').update(secret).digest('hex'));
  const [leak] = await testSql()`select count(*)::int as n from api_tokens where position(${secret} in concat_ws(' ', name, prefix, array_to_string(scopes, ' '))) > 0`;
  assert.is(leak!.n, 0);
});

test('POST /apps/api/tokens: expiresInDays defaults to 90', async () => {
  const answer = await request('POST', '/apps/api/tokens', { cookie: users.bob }, { name: 'default expiry', scopes: ['plugins:write'] });
  assert.is(answer.status, 201);
  const lifetime = Date.parse(answer.body.token.expiresAt) - Date.parse(answer.body.token.createdAt);
  assert.ok(Math.abs(lifetime - 90 * DAY_MS) < 60_000, `expires in ${lifetime} ms`);
});

const invalid: Array<{ what: string; body: unknown; field: string }> = [
  { what: 'name missing', body: { scopes: ['plugins:write'] }, field: 'name' },
  { what: 'name empty', body: { name: '  ', scopes: ['plugins:write'] }, field: 'name' },
  { what: 'name of 101 characters', body: { name: 'n'.repeat(101), scopes: ['plugins:write'] }, field: 'name' },
  { what: 'name not a string', body: { name: 7, scopes: ['plugins:write'] }, field: 'name' },
  { what: 'name with a control character', body: { name: 'a\u0007b', scopes: ['plugins:write'] }, field: 'name' },
  { what: 'scopes missing', body: { name: 'x' }, field: 'scopes' },
  { what: 'scopes empty', body: { name: 'x', scopes: [] }, field: 'scopes' },
  { what: 'scopes with an unknown scope', body: { name: 'x', scopes: ['plugins:write', 'admin'] }, field: 'scopes' },
  { what: 'scopes not a list', body: { name: 'x', scopes: 'plugins:write' }, field: 'scopes' },
  { what: 'expiresInDays 0', body: { name: 'x', scopes: ['plugins:write'], expiresInDays: 0 }, field: 'expiresInDays' },
  { what: 'expiresInDays 366 (over a year)', body: { name: 'x', scopes: ['plugins:write'], expiresInDays: 366 }, field: 'expiresInDays' },
  { what: 'expiresInDays fractional', body: { name: 'x', scopes: ['plugins:write'], expiresInDays: 1.5 }, field: 'expiresInDays' },
  { what: 'expiresInDays a string', body: { name: 'x', scopes: ['plugins:write'], expiresInDays: '30' }, field: 'expiresInDays' },
];
for (const row of invalid) {
  test(`POST /apps/api/tokens: ${row.what} -> 400 VALIDATION_FAILED field ${row.field}`, async () => {
    const answer = await request('POST', '/apps/api/tokens', { cookie: users.bob }, row.body);
    assert.is(answer.status, 400, JSON.stringify(answer.body));
    assert.equal(answer.body, { success: false, error: answer.body.error, code: 'VALIDATION_FAILED', field: row.field });
  });
}

test('POST /apps/api/tokens: 365 days is accepted (the maximum)', async () => {
  const answer = await request('POST', '/apps/api/tokens', { cookie: users.bob }, { name: 'a year', scopes: ['media:upload'], expiresInDays: 365 });
  assert.is(answer.status, 201);
});

test('token routes: without a session 401 UNAUTHORIZED', async () => {
  for (const [method, path, body] of [
    ['GET', '/apps/api/tokens', undefined],
    ['POST', '/apps/api/tokens', { name: 'x', scopes: ['plugins:write'] }],
    ['DELETE', '/apps/api/tokens/1', undefined],
  ] as const) {
    const answer = await request(method, path, {}, body);
    assert.is(answer.status, 401, `${method} ${path}`);
    assert.is(answer.body.code, 'UNAUTHORIZED');
  }
});

test('GET /apps/api/tokens: the caller\'s tokens, newest first, never a secret', async () => {
  const cookie = await testSessionCookie(testSql(), 'lister');
  const first = await newToken(request, cookie, { name: 'first' });
  const second = await newToken(request, cookie, { name: 'second', scopes: ['media:upload'] });
  await newToken(request, users.bob, { name: 'not mine' });
  const answer = await request('GET', '/apps/api/tokens', { cookie });
  assert.is(answer.status, 200);
  assert.is(answer.body.success, true);
  assert.equal(answer.body.tokens.map((t: any) => t.id), [second.id, first.id]);
  for (const token of answer.body.tokens) assert.equal(Object.keys(token).sort(), TOKEN_KEYS);
  const text = JSON.stringify(answer.body);
  assert.not.ok(text.includes(first.secret) || text.includes(second.secret) || text.includes('secret'), 'no secret in the list');
});

test('token lifecycle: use, lastUsedAt set (once a minute at most), revoke -> 401', async () => {
  const cookie = await testSessionCookie(testSql(), 'cycler');
  const { id, secret } = await newToken(request, cookie);
  const created = await request('POST', '/apps/api/plugins', { token: secret }, newPlugin('cycled-one'));
  assert.is(created.status, 201, JSON.stringify(created.body));

  const listed = await request('GET', '/apps/api/tokens', { cookie });
  const used = listed.body.tokens.find((t: any) => t.id === id);
  assert.match(used.lastUsedAt, ISO);

  // A second use inside the minute does not write the row again.
  await request('PATCH', '/apps/api/plugins/cycled-one', { token: secret }, { version: '1.0.1' });
  const again = await request('GET', '/apps/api/tokens', { cookie });
  assert.is(again.body.tokens.find((t: any) => t.id === id).lastUsedAt, used.lastUsedAt);

  const revoked = await request('DELETE', `/apps/api/tokens/${id}`, { cookie });
  assert.is(revoked.status, 200);
  assert.equal(revoked.body, { success: true });
  const after = await request('PATCH', '/apps/api/plugins/cycled-one', { token: secret }, { version: '1.0.2' });
  assert.is(after.status, 401);
  assert.is(after.body.code, 'UNAUTHORIZED');
  const gone = await request('GET', '/apps/api/tokens', { cookie });
  assert.not.ok(gone.body.tokens.some((t: any) => t.id === id));
});

test('DELETE /apps/api/tokens/:id: another user\'s, a missing or a malformed id -> 404 NOT_FOUND, token kept', async () => {
  const { id, secret } = await newToken(request, users.alice, { name: 'alice keeps it' });
  for (const path of [`/apps/api/tokens/${id}`, '/apps/api/tokens/999999999', '/apps/api/tokens/abc', '/apps/api/tokens/99999999999999999999999']) {
    const answer = await request('DELETE', path, { cookie: users.bob });
    assert.is(answer.status, 404, path);
    assert.is(answer.body.code, 'NOT_FOUND');
  }
  const still = await request('POST', '/apps/api/plugins', { token: secret }, newPlugin('still-works'));
  assert.is(still.status, 201);
});

test('bad, revoked and expired tokens: 401 UNAUTHORIZED with the same message', async () => {
  const expired = await newToken(request, users.alice, { name: 'expiring' });
  await expireToken(testSql(), expired.id);
  const revoked = await newToken(request, users.alice, { name: 'revoked' });
  await request('DELETE', `/apps/api/tokens/${revoked.id}`, { cookie: users.alice });
  const rows = [
    { what: 'expired', token: expired.secret },
    { what: 'revoked', token: revoked.secret },
    { what: 'unknown but well-formed', token: 'lwt_' + 'A'.repeat(43) },
    { what: 'malformed', token: 'not-a-token' },
    { what: 'empty', token: '' },
    { what: 'a session token, not an API token', token: users.alice.replace(/^sid=/, '') },
  ];
  const messages = new Set<string>();
  for (const row of rows) {
    const answer = await request('POST', '/apps/api/plugins', { token: row.token }, newPlugin('never-made'));
    assert.is(answer.status, 401, row.what);
    assert.is(answer.body.code, 'UNAUTHORIZED', row.what);
    messages.add(answer.body.error);
  }
  assert.is(messages.size, 1, [...messages].join(' | '));
});

test('scopes: a token without plugins:write -> 403 FORBIDDEN on plugin create and edit', async () => {
  const { secret } = await newToken(request, users.alice, { name: 'media only', scopes: ['media:upload'] });
  const created = await request('POST', '/apps/api/plugins', { token: secret }, newPlugin('media-only'));
  assert.is(created.status, 403);
  assert.is(created.body.code, 'FORBIDDEN');
  const edited = await request('PATCH', '/apps/api/plugins/still-works', { token: secret }, { version: '9' });
  assert.is(edited.status, 403);
});

test('session-only routes answer 403 FORBIDDEN to a token with every scope', async () => {
  const { secret } = await newToken(request, users.admin, { name: 'admin ci', scopes: ['plugins:write', 'media:upload'] });
  await pluginIn(storeClient(site.url), users, 'pending', 'to-review');
  const rows: Array<{ what: string; method: string; path: string; body?: unknown }> = [
    { what: 'review', method: 'POST', path: '/apps/api/plugins/to-review/review', body: { action: 'approve' } },
    { what: 'token list', method: 'GET', path: '/apps/api/tokens' },
    { what: 'token create', method: 'POST', path: '/apps/api/tokens', body: { name: 'x', scopes: ['plugins:write'] } },
    { what: 'token revoke', method: 'DELETE', path: '/apps/api/tokens/1' },
    { what: 'rate', method: 'PUT', path: '/apps/api/plugins/to-review/ratings', body: { stars: 5 } },
    { what: 'unrate', method: 'DELETE', path: '/apps/api/plugins/to-review/ratings' },
    { what: 'reply', method: 'POST', path: '/apps/api/plugins/to-review/ratings/alice/replies', body: { body: 'hi' } },
    { what: 'admin list', method: 'GET', path: '/apps/api/plugins?scope=admin' },
    { what: 'my list', method: 'GET', path: '/apps/api/plugins?scope=mine' },
    { what: 'who am I', method: 'GET', path: '/apps/api/me' },
  ];
  for (const row of rows) {
    const answer = await request(row.method, row.path, { token: secret }, row.body);
    assert.is(answer.status, 403, `${row.what}: ${JSON.stringify(answer.body)}`);
    assert.is(answer.body.code, 'FORBIDDEN', row.what);
  }
  const plugin = await request('GET', '/apps/api/plugins/to-review', { cookie: users.admin });
  assert.is(plugin.body.plugin.status, 'pending', 'the review did not happen');
});

test("an administrator's token does not act as an administrator: its edit of an approved plugin is a pending update", async () => {
  const { secret } = await newToken(request, users.admin, { name: 'admin publishes' });
  const approved = await pluginIn(storeClient(site.url), users, 'approved', 'admin-owned', {}, users.admin);
  assert.is(approved.status, 'approved');
  const edited = await request('PATCH', '/apps/api/plugins/admin-owned', { token: secret }, { version: '2.0.0', featured: true });
  assert.is(edited.status, 403, 'featured is for administrators, and a token is not one');
  const versioned = await request('PATCH', '/apps/api/plugins/admin-owned', { token: secret }, { version: '2.0.0' });
  assert.is(versioned.status, 200);
  assert.is(versioned.body.plugin.version, '1.0.0');
  assert.is(versioned.body.plugin.pendingUpdate.version, '2.0.0');
});

test('a token with the session cookie too -> 400 BAD_REQUEST, nothing written', async () => {
  const { secret } = await newToken(request, users.alice, { name: 'both' });
  const answer = await request('POST', '/apps/api/plugins', { token: secret, cookie: users.alice }, newPlugin('both-at-once'));
  assert.is(answer.status, 400);
  assert.is(answer.body.code, 'BAD_REQUEST');
  const listed = await request('GET', '/apps/api/plugins/both-at-once', { cookie: users.alice });
  assert.is(listed.status, 404);
});

test('a token is not subject to the cross-site check (a foreign Origin without the cookie)', async () => {
  const { secret } = await newToken(request, users.alice, { name: 'from elsewhere' });
  const answer = await request('POST', '/apps/api/plugins', { token: secret, headers: { origin: 'https://ci.example' } }, newPlugin('from-elsewhere'));
  assert.is(answer.status, 201, JSON.stringify(answer.body));
});

test('a plugin created with a token belongs to the token\'s user and is pending', async () => {
  const cookie = await testSessionCookie(testSql(), 'carol');
  const { secret } = await newToken(request, cookie, { name: 'carol ci' });
  const answer = await request('POST', '/apps/api/plugins', { token: secret }, newPlugin('carols-plugin'));
  assert.is(answer.status, 201, JSON.stringify(answer.body));
  assert.is(answer.body.plugin.submitter, 'carol');
  assert.is(answer.body.plugin.status, 'pending');
  const mine = await request('GET', '/apps/api/plugins?scope=mine', { cookie });
  assert.equal(mine.body.plugins.map((p: any) => p.id), ['carols-plugin']);
});

test('an approved plugin patched with a token gets a pending update; the live record is unchanged until review', async () => {
  const store = storeClient(site.url);
  await pluginIn(store, users, 'approved', 'ci-release');
  const { secret } = await newToken(request, users.alice, { name: 'release' });
  const patched = await request('PATCH', '/apps/api/plugins/ci-release', { token: secret }, { version: '1.1.0', download: 'https://downloads.example.com/ci-release-1.1.0.zip' });
  assert.is(patched.status, 200, JSON.stringify(patched.body));
  assert.is(patched.body.plugin.status, 'approved');
  assert.is(patched.body.plugin.version, '1.0.0');
  assert.is(patched.body.plugin.pendingUpdate.version, '1.1.0');
  const visitor = await store.get('/apps/api/plugins/ci-release');
  assert.is(visitor.body.plugin.version, '1.0.0');
  const reviewed = await store.post('/apps/api/plugins/ci-release/review', { action: 'approve' }, { cookie: users.admin });
  assert.is(reviewed.body.plugin.version, '1.1.0');
});

test("a token cannot edit another user's plugin (404, as for a session)", async () => {
  await pluginIn(storeClient(site.url), users, 'approved', 'bobs-plugin', {}, users.bob);
  const { secret } = await newToken(request, users.alice, { name: 'not bob' });
  const answer = await request('PATCH', '/apps/api/plugins/bobs-plugin', { token: secret }, { version: '6.6.6' });
  assert.ok(answer.status === 404 || answer.status === 403, String(answer.status));
});

test(`at most ${MAX_LIVE_TOKENS} live tokens per user: the next is 409 CONFLICT; expired ones do not count`, async () => {
  const cookie = await testSessionCookie(testSql(), 'hoarder');
  const made = await Promise.all(Array.from({ length: MAX_LIVE_TOKENS + 3 }, (_, i) => request('POST', '/apps/api/tokens', { cookie }, { name: `t${i}`, scopes: ['plugins:write'] })));
  const statuses = made.map((answer) => answer.status).sort();
  assert.is(statuses.filter((s) => s === 201).length, MAX_LIVE_TOKENS, 'concurrent creations cannot pass the limit together');
  for (const refused of made.filter((answer) => answer.status !== 201)) {
    assert.is(refused.status, 409);
    assert.is(refused.body.code, 'CONFLICT');
  }
  const one = made.find((answer) => answer.status === 201)!.body.token.id;
  await expireToken(testSql(), one);
  const again = await request('POST', '/apps/api/tokens', { cookie }, { name: 'after expiry', scopes: ['plugins:write'] });
  assert.is(again.status, 201);
});

test('logging out does not revoke tokens; deleting the user does', async () => {
  const cookie = await testSessionCookie(testSql(), 'leaver');
  const { secret } = await newToken(request, cookie, { name: 'outlives the session' });
  const out = await request('POST', '/apps/auth/logout', { cookie });
  assert.is(out.status, 200);
  // The guard lets the token through; the plugin just does not exist.
  const used = await request('PATCH', '/apps/api/plugins/no-such-plugin', { token: secret }, { version: '2' });
  assert.is(used.status, 404);
  await testSql()`delete from users where username = 'leaver'`;
  const [left] = await testSql()`select count(*)::int as n from api_tokens t where not exists (select 1 from users u where u.id = t.user_id)`;
  assert.is(left!.n, 0);
  const after = await request('PATCH', '/apps/api/plugins/no-such-plugin', { token: secret }, { version: '2' });
  assert.is(after.status, 401);
});

test(`token use is rate-limited per user: past ${TOKEN_REQUESTS_PER_WINDOW} requests a minute, 429 RATE_LIMITED with Retry-After`, async () => {
  const cookie = await testSessionCookie(testSql(), 'busy');
  const { secret } = await newToken(request, cookie, { name: 'busy' });
  // The cheapest route a token reaches: a body that fails validation after the guard.
  for (let i = 0; i < TOKEN_REQUESTS_PER_WINDOW; i++) {
    const answer = await request('POST', '/apps/api/plugins', { token: secret }, {});
    assert.is(answer.status, 400, `request ${i}`);
  }
  const over = await request('POST', '/apps/api/plugins', { token: secret }, {});
  assert.is(over.status, 429);
  assert.is(over.body.code, 'RATE_LIMITED');
  assert.ok(Number(over.headers.get('retry-after')) >= 1);
  const session = await request('POST', '/apps/api/plugins', { cookie }, {});
  assert.is(session.status, 400, 'the session is not limited by token use');
});

test.run();
