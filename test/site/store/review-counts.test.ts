// The review queue's API (issue 34): GET /apps/api/review/counts says what waits,
// by kind, in one call, and moves with every decision; sort=oldest lists what has
// waited longest first, paged with limit and offset, in lists and in search.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { insertPlugin, testUser, type TestUser } from '../../helpers/store-fixtures.js';
import { storeClient, type StoreClient } from './store-client.js';

let site: TestServer;
let client: StoreClient;
let author: TestUser;
let admin: TestUser;
let user: TestUser;
const sql = testSql();
const ids = (answer: { body: { plugins: Array<{ id: string }> } }) => answer.body.plugins.map((plugin) => plugin.id);
const counts = async () => (await client.get('/apps/api/review/counts', { cookie: admin.cookie })).body;

// Pending plugins, each waiting since the hour given (the youngest first here, so
// that an order by insertion would not pass for oldest first).
const WAITING = [
  { id: 'rc-young', hoursAgo: 1 },
  { id: 'rc-middle', hoursAgo: 5 },
  { id: 'rc-tie-b', hoursAgo: 9 },
  { id: 'rc-tie-a', hoursAgo: 9 },
  { id: 'rc-ancient', hoursAgo: 48 },
];

test.before(async () => {
  site = await startTestSite();
  client = storeClient(site.url);
  author = await testUser(sql, 'rc-author');
  user = await testUser(sql, 'rc-user');
  admin = await testUser(sql, 'rc-admin', { admin: true });
  const base = Date.parse('2026-11-20T12:00:00Z');
  for (const { id, hoursAgo } of WAITING) {
    const at = new Date(base - hoursAgo * 3600_000);
    await insertPlugin(sql, id, author, 'pending', { created_at: at, updated_at: at, name: `Queue ${id}` });
  }
  await insertPlugin(sql, 'rc-live', author, 'approved', { updated_at: new Date(base - 100 * 3600_000) });
  await insertPlugin(sql, 'rc-live-2', author, 'approved');
  await insertPlugin(sql, 'rc-gone', author, 'rejected');
  for (const id of ['rc-live', 'rc-live-2']) {
    assert.is((await client.patch(`/apps/api/plugins/${id}`, { description: 'Changed' }, { cookie: author.cookie })).status, 200);
  }
  const reported = await client.post('/apps/api/reports', { target: { type: 'plugin', plugin: 'rc-live' }, reason: 'spam' }, { cookie: user.cookie });
  assert.is(reported.status, 201);
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

test('counts: plugins pending review, pending updates and open reports, in one answer', async () => {
  const answer = await client.get('/apps/api/review/counts', { cookie: admin.cookie });
  assert.is(answer.status, 200);
  assert.equal(answer.body, { success: true, pending: 5, updates: 2, reports: 1 });
  assert.is(answer.headers.get('cache-control'), 'no-store');
});

test('counts agree with the lists they count', async () => {
  const { pending, updates } = await counts();
  const fresh = await client.get('/apps/api/plugins?scope=admin&status=pending&limit=1', { cookie: admin.cookie });
  const edits = await client.get('/apps/api/plugins?scope=admin&update=pending&limit=1', { cookie: admin.cookie });
  assert.equal([fresh.body.total, edits.body.total], [pending, updates]);
});

test('counts follow every decision: approving a new plugin, rejecting an update, resolving a report', async () => {
  const review = (id: string, action: string) => client.post(`/apps/api/plugins/${id}/review`, { action, reason: 'test' }, { cookie: admin.cookie });
  assert.is((await review('rc-young', 'approve')).status, 200);
  assert.equal(await counts(), { success: true, pending: 4, updates: 2, reports: 1 });
  assert.is((await review('rc-live-2', 'reject')).status, 200);
  assert.equal(await counts(), { success: true, pending: 4, updates: 1, reports: 1 });
  const [report] = (await client.get('/apps/api/reports', { cookie: admin.cookie })).body.reports;
  assert.is((await client.post(`/apps/api/reports/${report.id}/resolve`, { action: 'dismiss' }, { cookie: admin.cookie })).status, 200);
  assert.equal(await counts(), { success: true, pending: 4, updates: 1, reports: 0 });
});

const callers = [
  { what: 'a visitor', cookie: () => undefined, status: 401, code: 'UNAUTHORIZED' },
  { what: 'a user', cookie: () => user.cookie, status: 403, code: 'FORBIDDEN' },
];
for (const c of callers) {
  test(`counts are for administrators only: ${c.what} gets ${c.status}`, async () => {
    const answer = await client.get('/apps/api/review/counts', { cookie: c.cookie() });
    assert.is(answer.status, c.status);
    assert.is(answer.body.code, c.code);
  });
}

test('sort=oldest: pending plugins longest waiting first, ties by id descending (updated reversed)', async () => {
  const answer = await client.get('/apps/api/plugins?scope=admin&status=pending&sort=oldest', { cookie: admin.cookie });
  assert.is(answer.status, 200);
  assert.equal(ids(answer), ['rc-ancient', 'rc-tie-b', 'rc-tie-a', 'rc-middle']);
  const updated = await client.get('/apps/api/plugins?scope=admin&status=pending&sort=updated', { cookie: admin.cookie });
  assert.equal(ids(updated), [...ids(answer)].reverse());
});

test('sort=oldest pages with limit and offset, the total unchanged', async () => {
  const pages = [];
  for (const offset of [0, 1, 2, 3, 4]) {
    const page = await client.get(`/apps/api/plugins?scope=admin&status=pending&sort=oldest&include=review&limit=1&offset=${offset}`, { cookie: admin.cookie });
    assert.is(page.body.total, 4, `offset ${offset}`);
    pages.push(...ids(page));
  }
  assert.equal(pages, ['rc-ancient', 'rc-tie-b', 'rc-tie-a', 'rc-middle']);
});

test('sort=oldest in a search: matches least recently updated first', async () => {
  const answer = await client.get('/apps/api/plugins?scope=admin&q=queue&sort=oldest', { cookie: admin.cookie });
  assert.is(answer.status, 200);
  assert.equal(ids(answer), ['rc-ancient', 'rc-tie-a', 'rc-tie-b', 'rc-middle', 'rc-young']);
});

test('a proposed long description comes with its Markdown tree, as the live one does', async () => {
  const before = (await client.get('/apps/api/plugins/rc-live', { cookie: admin.cookie })).body.plugin;
  assert.not.ok('longDescriptionTree' in before.pendingUpdate, 'an update that leaves it unchanged has none');
  const edit = await client.patch('/apps/api/plugins/rc-live', { longDescription: '## New\n\n**bold** text' }, { cookie: author.cookie });
  assert.is(edit.status, 200);
  const { plugin } = (await client.get('/apps/api/plugins/rc-live', { cookie: admin.cookie })).body;
  assert.equal(plugin.pendingUpdate.longDescriptionTree, [['h3', {}, 'New'], ['p', {}, ['strong', {}, 'bold'], ' text']]);
  const listed = await client.get('/apps/api/plugins?scope=admin&update=pending&include=review', { cookie: admin.cookie });
  assert.equal(listed.body.plugins.find((p: { id: string }) => p.id === 'rc-live').pendingUpdate.longDescriptionTree, plugin.pendingUpdate.longDescriptionTree);
});

test('a sort that does not exist is 400 naming sort', async () => {
  const answer = await client.get('/apps/api/plugins?scope=admin&sort=newest', { cookie: admin.cookie });
  assert.is(answer.status, 400);
  assert.equal([answer.body.code, answer.body.field], ['BAD_REQUEST', 'sort']);
});

test.run();
