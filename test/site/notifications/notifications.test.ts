// Notifications: one for each event (review and update decisions with the reason,
// new ratings and replies on an author's plugins, replies to a rater's rating,
// report outcomes), none for one's own actions; the list (newest first, unread,
// total, the caller's own only) and marking read by ids or all.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../src/db/pool.js';
import { READ_BODY_LIMIT } from '../../../src/services/site/notifications/notification-routes.js';
import { insertPlugin, testUser, type TestUser } from '../../helpers/store-fixtures.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { storeClient, type StoreClient } from '../store/store-client.js';

let site: TestServer;
let client: StoreClient;
let sql: Sql;
let admin: TestUser;

test.before(async () => {
  sql = testSql();
  site = await startTestSite();
  client = storeClient(site.url);
  admin = await testUser(sql, 'ntf-admin', { admin: true });
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

const list = async (user: TestUser, query = '') => {
  const answer = await client.get(`/apps/api/notifications${query}`, { cookie: user.cookie });
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
};
const markRead = (user: TestUser, body: unknown) => client.post('/apps/api/notifications/read', body, { cookie: user.cookie });

test('review decisions notify the author, with the reason; the list has its shape', async () => {
  const author = await testUser(sql, 'ntf-author1');
  await insertPlugin(sql, 'ntf-review', author, 'pending');
  await client.post('/apps/api/plugins/ntf-review/review', { action: 'reject', reason: 'No icon' }, { cookie: admin.cookie });
  await client.post('/apps/api/plugins/ntf-review/review', { action: 'approve' }, { cookie: admin.cookie });
  const body = await list(author);
  assert.equal(Object.keys(body).sort(), ['notifications', 'success', 'total', 'unread']);
  assert.equal([body.total, body.unread], [2, 2]);
  const [approved, rejected] = body.notifications;
  assert.equal(Object.keys(rejected).sort(), ['actor', 'createdAt', 'id', 'kind', 'message', 'plugin', 'read']);
  assert.equal([rejected.kind, rejected.plugin, rejected.actor, rejected.read], ['review.rejected', 'ntf-review', 'ntf-admin', false]);
  assert.match(rejected.message, /No icon/);
  assert.is(approved.kind, 'review.approved');
  assert.ok(approved.id > rejected.id, 'newest first');
});

test("a pending update's decision is update.approved / update.rejected", async () => {
  const author = await testUser(sql, 'ntf-author2');
  await insertPlugin(sql, 'ntf-update', author, 'approved');
  await client.patch('/apps/api/plugins/ntf-update', { description: 'New' }, { cookie: author.cookie });
  await client.post('/apps/api/plugins/ntf-update/review', { action: 'reject', reason: 'Too vague' }, { cookie: admin.cookie });
  await client.patch('/apps/api/plugins/ntf-update', { description: 'Newer' }, { cookie: author.cookie });
  await client.post('/apps/api/plugins/ntf-update/review', { action: 'approve' }, { cookie: admin.cookie });
  const kinds = (await list(author)).notifications.map((n: any) => n.kind);
  assert.equal(kinds, ['update.approved', 'update.rejected']);
});

test('a new rating notifies the author (a changed one does not); a reply notifies the rater and the author', async () => {
  const author = await testUser(sql, 'ntf-author3');
  const rater = await testUser(sql, 'ntf-rater');
  const replier = await testUser(sql, 'ntf-replier');
  await insertPlugin(sql, 'ntf-rate', author, 'approved');
  const rate = (stars: number) => client.request('PUT', '/apps/api/plugins/ntf-rate/ratings', { cookie: rater.cookie, body: { stars } });
  assert.is((await rate(4)).status, 200);
  assert.is((await rate(5)).status, 200);
  let authorList = await list(author);
  assert.equal(authorList.notifications.map((n: any) => [n.kind, n.actor]), [['rating.created', 'ntf-rater']]);

  assert.is((await client.post('/apps/api/plugins/ntf-rate/ratings/ntf-rater/replies', { body: 'Thanks!' }, { cookie: replier.cookie })).status, 201);
  authorList = await list(author);
  assert.equal(authorList.notifications[0].kind, 'reply.created');
  const raterList = await list(rater);
  assert.equal(raterList.notifications.map((n: any) => [n.kind, n.plugin, n.actor]), [['reply.created', 'ntf-rate', 'ntf-replier']]);
  // The author's own reply to the rating notifies the rater only.
  assert.is((await client.post('/apps/api/plugins/ntf-rate/ratings/ntf-rater/replies', { body: 'Glad' }, { cookie: author.cookie })).status, 201);
  assert.is((await list(author)).total, 2);
  assert.is((await list(rater)).total, 2);
});

test('a report outcome notifies each reporter of the target', async () => {
  const author = await testUser(sql, 'ntf-author4');
  const one = await testUser(sql, 'ntf-reporter1');
  const two = await testUser(sql, 'ntf-reporter2');
  await insertPlugin(sql, 'ntf-report', author, 'approved');
  const filed = await client.post('/apps/api/reports', { target: { type: 'plugin', plugin: 'ntf-report' }, reason: 'broken' }, { cookie: one.cookie });
  await client.post('/apps/api/reports', { target: { type: 'plugin', plugin: 'ntf-report' }, reason: 'broken' }, { cookie: two.cookie });
  assert.is((await client.post(`/apps/api/reports/${filed.body.report.id}/resolve`, { action: 'dismiss' }, { cookie: admin.cookie })).status, 200);
  for (const reporter of [one, two]) {
    const [notice] = (await list(reporter)).notifications;
    assert.equal([notice.kind, notice.plugin, notice.actor], ['report.resolved', 'ntf-report', 'ntf-admin']);
    assert.match(notice.message, /dismissed/);
  }
});

test("an administrator's review of their own plugin notifies no one", async () => {
  await insertPlugin(sql, 'ntf-self', admin, 'pending');
  const before = (await list(admin)).total;
  await client.post('/apps/api/plugins/ntf-self/review', { action: 'approve' }, { cookie: admin.cookie });
  assert.is((await list(admin)).total, before);
});

test('marking read: by ids (another user\'s ids ignored), then all; unread follows; paging', async () => {
  const author = await testUser(sql, 'ntf-author5');
  const stranger = await testUser(sql, 'ntf-stranger');
  for (let i = 0; i < 3; i++) {
    await insertPlugin(sql, `ntf-read-${i}`, author, 'pending');
    await client.post(`/apps/api/plugins/ntf-read-${i}/review`, { action: 'approve' }, { cookie: admin.cookie });
  }
  const all = await list(author);
  assert.equal([all.total, all.unread], [3, 3]);
  const page = await list(author, '?limit=2&offset=1');
  assert.equal(page.notifications.map((n: any) => n.id), all.notifications.slice(1).map((n: any) => n.id));

  const newest = all.notifications[0].id;
  assert.equal((await markRead(stranger, { ids: [newest] })).body, { success: true, unread: 0 });
  assert.is((await list(author)).unread, 3);
  assert.equal((await markRead(author, { ids: [newest] })).body, { success: true, unread: 2 });
  const after = await list(author);
  assert.equal(after.notifications.map((n: any) => n.read), [true, false, false]);
  assert.equal((await markRead(author, { all: true })).body, { success: true, unread: 0 });
  assert.is((await list(author)).unread, 0);
});

const badReads = [
  { what: 'neither ids nor all', body: {}, status: 400 },
  { what: 'all false', body: { all: false }, status: 400 },
  { what: 'ids not numbers', body: { ids: ['1'] }, status: 400 },
  { what: 'ids with a fraction', body: { ids: [1.5] }, status: 400 },
  { what: 'both ids and all', body: { ids: [1], all: true }, status: 400 },
  { what: 'too many ids', body: { ids: Array.from({ length: 201 }, (_, i) => i + 1) }, status: 400 },
  { what: 'an array body', body: [1], status: 400 },
];
for (const row of badReads) {
  test(`POST /apps/api/notifications/read with ${row.what} -> ${row.status}`, async () => {
    const answer = await markRead(admin, row.body);
    assert.is(answer.status, row.status);
    assert.ok(['BAD_REQUEST', 'VALIDATION_FAILED'].includes(answer.body.code));
  });
}

test('POST /apps/api/notifications/read with a body over 16 KB -> 413, unread', async () => {
  const answer = await markRead(admin, { ids: [1], padding: 'x'.repeat(READ_BODY_LIMIT) });
  assert.is(answer.status, 413);
  assert.is(answer.body.code, 'PAYLOAD_TOO_LARGE');
});

test('visitors get 401; bad paging 400', async () => {
  assert.is((await client.get('/apps/api/notifications')).status, 401);
  assert.is((await client.post('/apps/api/notifications/read', { all: true })).status, 401);
  assert.is((await client.get('/apps/api/notifications?limit=0', { cookie: admin.cookie })).status, 400);
  assert.is((await client.get('/apps/api/notifications?limit=101', { cookie: admin.cookie })).status, 400);
});

test.run();
