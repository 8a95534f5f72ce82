// GET /apps/api/plugins?update=pending: the review queue of pending updates (the
// review page lists them; no other filter finds them without walking every
// approved plugin). And large lists answer compressed when the client accepts it.
import { brotliDecompressSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rawRequest } from '../../helpers/raw-http.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { pluginIn, storeClient, storeUsers, type StoreClient, type Users } from './store-client.js';

let site: TestServer;
let client: StoreClient;
let users: Users;
const sql = testSql();
const ids = (answer: { body: { plugins: Array<{ id: string }> } }) => answer.body.plugins.map((plugin) => plugin.id);

test.before(async () => {
  site = await startTestSite();
  client = storeClient(site.url);
  users = await storeUsers(sql);
  await pluginIn(client, users, 'approved', 'q-first');
  await pluginIn(client, users, 'approved', 'q-second', {}, users.bob);
  await pluginIn(client, users, 'approved', 'q-untouched');
  await pluginIn(client, users, 'pending', 'q-new');
  // Edits of approved plugins wait for review; the first edited first.
  assert.is((await client.patch('/apps/api/plugins/q-first', { version: '2.0.0' }, { cookie: users.alice })).status, 200);
  assert.is((await client.patch('/apps/api/plugins/q-second', { description: 'Changed' }, { cookie: users.bob })).status, 200);
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

test('update=pending with scope=admin: approved plugins with a pending update, oldest first, with the update', async () => {
  const answer = await client.get('/apps/api/plugins?scope=admin&update=pending', { cookie: users.admin });
  assert.is(answer.status, 200);
  assert.equal(ids(answer), ['q-first', 'q-second']);
  assert.is(answer.body.total, 2);
  assert.is(answer.body.plugins[0].version, '1.0.0', 'the live record');
  assert.is(answer.body.plugins[0].pendingUpdate.version, '2.0.0', 'beside its update');
});

test('update=pending with scope=mine: only the caller’s', async () => {
  const answer = await client.get('/apps/api/plugins?scope=mine&update=pending', { cookie: users.bob });
  assert.equal(ids(answer), ['q-second']);
});

test('update=pending pages with total; past the end the total stays', async () => {
  const page = await client.get('/apps/api/plugins?scope=admin&update=pending&limit=1&offset=1', { cookie: users.admin });
  assert.equal(ids(page), ['q-second']);
  const past = await client.get('/apps/api/plugins?scope=admin&update=pending&offset=5', { cookie: users.admin });
  assert.equal(ids(past), []);
  assert.is(past.body.total, 2);
});

test('an approved update leaves the queue', async () => {
  assert.is((await client.post('/apps/api/plugins/q-first/review', { action: 'approve' }, { cookie: users.admin })).status, 200);
  const answer = await client.get('/apps/api/plugins?scope=admin&update=pending', { cookie: users.admin });
  assert.equal(ids(answer), ['q-second']);
});

const refused = [
  { what: 'no scope', path: '/apps/api/plugins?update=pending', cookie: 'admin', status: 400, field: 'update' },
  { what: 'another value', path: '/apps/api/plugins?scope=admin&update=all', cookie: 'admin', status: 400, field: 'update' },
  { what: 'twice', path: '/apps/api/plugins?scope=admin&update=pending&update=pending', cookie: 'admin', status: 400, field: 'update' },
  { what: 'scope=admin for a user', path: '/apps/api/plugins?scope=admin&update=pending', cookie: 'alice', status: 403 },
  { what: 'scope=mine without login', path: '/apps/api/plugins?scope=mine&update=pending', cookie: undefined, status: 401 },
] as const;
for (const c of refused) {
  test(`update=pending refused: ${c.what}`, async () => {
    const answer = await client.get(c.path, { cookie: c.cookie ? users[c.cookie] : undefined });
    assert.is(answer.status, c.status);
    if ('field' in c) assert.is(answer.body.field, c.field);
  });
}

test('a large list is compressed when the client accepts it; a small answer is not', async () => {
  await sql`insert into plugins (id, submitter_id, name, version, description, download, status)
            select 'bulk-' || n, (select id from users order by id limit 1), 'Bulk ' || n, '1.0', repeat('words ', 40),
                   'https://example.com/bulk-' || n || '.zip', 'approved'
              from generate_series(1, 100) as n`;
  const plain = await rawRequest(site.url, 'GET', '/apps/api/plugins?public=1&limit=100');
  assert.is(plain.headers['content-encoding'], undefined);
  assert.ok(plain.bytes.length > 8 * 1024);
  const br = await rawRequest(site.url, 'GET', '/apps/api/plugins?public=1&limit=100', { headers: { 'accept-encoding': 'gzip, br' } });
  assert.is(br.headers['content-encoding'], 'br');
  assert.match(String(br.headers.vary), /Accept-Encoding/);
  assert.is(brotliDecompressSync(br.bytes).toString(), plain.body);
  assert.ok(br.bytes.length < plain.bytes.length / 3, `${br.bytes.length} of ${plain.bytes.length}`);
  const small = await rawRequest(site.url, 'GET', '/apps/api/me', { headers: { 'accept-encoding': 'gzip, br' } });
  assert.is(small.headers['content-encoding'], undefined);
  const info = await rawRequest(site.url, 'GET', '/healthz', { headers: { 'accept-encoding': 'gzip, br' } });
  assert.is(info.headers['content-encoding'], undefined);
});

test.run();
