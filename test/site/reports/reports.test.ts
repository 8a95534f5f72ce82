// Reports: filing (shape, one open report per user and target, 10 a day, what the
// reporter may not see), the administrators' queue, and resolutions: dismiss,
// hide-rating (the rating leaves the lists and statistics and comes back exactly
// when unhidden), unlist (rejected with the reason); each resolution audited.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../src/db/pool.js';
import { insertPlugin, insertRating, testUser, type TestUser } from '../../helpers/store-fixtures.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { storeClient, type StoreClient } from '../store/store-client.js';

let site: TestServer;
let client: StoreClient;
let sql: Sql;
let author: TestUser;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let admin: TestUser;

test.before(async () => {
  sql = testSql();
  site = await startTestSite();
  client = storeClient(site.url);
  author = await testUser(sql, 'rep-author');
  alice = await testUser(sql, 'rep-alice');
  bob = await testUser(sql, 'rep-bob');
  carol = await testUser(sql, 'rep-carol');
  admin = await testUser(sql, 'rep-admin', { admin: true });
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

const report = (body: unknown, user: TestUser | undefined) => client.post('/apps/api/reports', body, user ? { cookie: user.cookie } : {});
const resolve = (id: unknown, body: unknown, user = admin) => client.post(`/apps/api/reports/${id}/resolve`, body, { cookie: user.cookie });
const queue = (query = '?status=open', user = admin) => client.get(`/apps/api/reports${query}`, { cookie: user.cookie });
const ratingsOf = (id: string) => client.get(`/apps/api/plugins/${id}/ratings`);
const auditOf = async (id: string) => (await client.get(`/apps/api/audit?plugin=${id}`, { cookie: admin.cookie })).body.entries as any[];

test('a report of a plugin: 201 with its shape; a second open one by the same user 409; the queue shows it', async () => {
  await insertPlugin(sql, 'rep-life', author);
  const answer = await report({ target: { type: 'plugin', plugin: 'REP-LIFE' }, reason: 'malware', note: '  Steals tokens  ' }, alice);
  assert.is(answer.status, 201, JSON.stringify(answer.body));
  const created = answer.body.report;
  assert.equal(Object.keys(created).sort(), ['createdAt', 'id', 'note', 'reason', 'status', 'target']);
  assert.equal(created.target, { type: 'plugin', plugin: 'rep-life' });
  assert.equal([created.reason, created.note, created.status], ['malware', 'Steals tokens', 'open']);
  assert.is(typeof created.id, 'number');
  assert.match(created.createdAt, /^\d{4}-\d\d-\d\dT/);

  const again = await report({ target: { type: 'plugin', plugin: 'rep-life' }, reason: 'spam' }, alice);
  assert.is(again.status, 409);
  assert.is(again.body.code, 'CONFLICT');
  assert.is((await report({ target: { type: 'plugin', plugin: 'rep-life' }, reason: 'spam' }, bob)).status, 201);

  const listed = await queue();
  assert.is(listed.status, 200);
  const mine = listed.body.reports.filter((r: any) => r.target.plugin === 'rep-life');
  assert.is(mine.length, 2);
  assert.ok(mine.every((r: any) => r.targetReports === 2 && r.status === 'open'));
  assert.equal(mine.map((r: any) => r.reporter), ['rep-alice', 'rep-bob']);
  assert.ok(listed.body.total >= 2);
});

const refused = [
  { what: 'no target', body: { reason: 'spam' }, status: 400, field: 'target' },
  { what: 'an unknown target type', body: { target: { type: 'user', plugin: 'rep-bad' }, reason: 'spam' }, status: 400, field: 'target.type' },
  { what: 'a reason off the list', body: { target: { type: 'plugin', plugin: 'rep-bad' }, reason: 'ugly' }, status: 400, field: 'reason' },
  { what: 'a note over 500 characters', body: { target: { type: 'plugin', plugin: 'rep-bad' }, reason: 'other', note: 'x'.repeat(501) }, status: 400, field: 'note' },
  { what: 'a rating without its user', body: { target: { type: 'rating', plugin: 'rep-bad' }, reason: 'abuse' }, status: 400, field: 'target.user' },
  { what: 'a plugin that does not exist', body: { target: { type: 'plugin', plugin: 'rep-no-such' }, reason: 'spam' }, status: 404 },
  { what: 'a pending plugin of another user', body: { target: { type: 'plugin', plugin: 'rep-hidden' }, reason: 'spam' }, status: 404 },
  { what: 'a rating that does not exist', body: { target: { type: 'rating', plugin: 'rep-bad', user: 'rep-carol' }, reason: 'abuse' }, status: 404 },
];
for (const row of refused) {
  test(`POST /apps/api/reports with ${row.what} -> ${row.status}`, async () => {
    await sql`insert into plugins (id, submitter_id, name, version, author, description, download, status)
              values ('rep-bad', ${author.id}, 'Bad', '1.0.0', 'a', 'd', 'https://x.example/b.zip', 'approved'),
                     ('rep-hidden', ${author.id}, 'Hidden', '1.0.0', 'a', 'd', 'https://x.example/h.zip', 'pending')
              on conflict do nothing`;
    const answer = await report(row.body, alice);
    assert.is(answer.status, row.status, JSON.stringify(answer.body));
    if (row.field) assert.is(answer.body.field, row.field);
  });
}

test('a visitor cannot report (401); the queue is for administrators (403)', async () => {
  assert.is((await report({ target: { type: 'plugin', plugin: 'rep-life' }, reason: 'spam' }, undefined)).status, 401);
  assert.is((await queue('?status=open', alice)).status, 403);
  assert.is((await queue('?status=closed')).status, 400);
});

test('hide-rating: the rating leaves the list and the statistics at once; unhiding restores them exactly', async () => {
  await insertPlugin(sql, 'rep-hide', author);
  await insertRating(sql, 'rep-hide', bob, 5, 'Great');
  await insertRating(sql, 'rep-hide', carol, 1, 'abusive words');
  const before = (await ratingsOf('rep-hide')).body;
  const detailBefore = (await client.get('/apps/api/plugins/rep-hide')).body.plugin;
  assert.equal([before.count, before.avg], [2, 3]);

  const filed = await report({ target: { type: 'rating', plugin: 'rep-hide', user: 'REP-CAROL' }, reason: 'abuse' }, alice);
  assert.is(filed.status, 201);
  assert.equal(filed.body.report.target, { type: 'rating', plugin: 'rep-hide', user: 'rep-carol' });
  const resolved = await resolve(filed.body.report.id, { action: 'hide-rating', reason: 'Insults' });
  assert.is(resolved.status, 200, JSON.stringify(resolved.body));
  assert.equal([resolved.body.report.status, resolved.body.report.resolution], ['resolved', 'hide-rating']);

  const hidden = (await ratingsOf('rep-hide')).body;
  assert.equal([hidden.count, hidden.avg], [1, 5]);
  assert.equal(hidden.distribution, { '1': 0, '2': 0, '3': 0, '4': 0, '5': 1 });
  assert.equal(hidden.ratings.map((r: any) => r.user), ['rep-bob']);
  const detailHidden = (await client.get('/apps/api/plugins/rep-hide')).body.plugin;
  assert.is(detailHidden.ratingAvg, 5);

  const unhidden = await client.post('/apps/api/plugins/rep-hide/ratings/rep-carol/unhide', undefined, { cookie: admin.cookie });
  assert.is(unhidden.status, 200, JSON.stringify(unhidden.body));
  const after = (await ratingsOf('rep-hide')).body;
  assert.equal(after, before);
  assert.equal((await client.get('/apps/api/plugins/rep-hide')).body.plugin, detailBefore);
  assert.is((await client.post('/apps/api/plugins/rep-hide/ratings/rep-alice/unhide', undefined, { cookie: admin.cookie })).status, 404);
  assert.is((await client.post('/apps/api/plugins/rep-hide/ratings/rep-carol/unhide', undefined, { cookie: alice.cookie })).status, 403);

  const actions = (await auditOf('rep-hide')).map((e) => [e.action, e.target, e.before.hidden, e.after.hidden]);
  assert.equal(actions, [
    ['rating.unhide', { type: 'rating', plugin: 'rep-hide', user: 'rep-carol' }, true, false],
    ['report.hide-rating', { type: 'rating', plugin: 'rep-hide', user: 'rep-carol' }, false, true],
  ]);
});

test('a rating changed while hidden counts with its new stars when unhidden', async () => {
  await insertPlugin(sql, 'rep-hide-edit', author);
  await insertRating(sql, 'rep-hide-edit', carol, 1);
  const filed = await report({ target: { type: 'rating', plugin: 'rep-hide-edit', user: 'rep-carol' }, reason: 'spam' }, alice);
  assert.is((await resolve(filed.body.report.id, { action: 'hide-rating' })).status, 200);
  assert.is((await client.request('PUT', '/apps/api/plugins/rep-hide-edit/ratings', { cookie: carol.cookie, body: { stars: 4 } })).status, 200);
  assert.is((await ratingsOf('rep-hide-edit')).body.count, 0);
  await client.post('/apps/api/plugins/rep-hide-edit/ratings/rep-carol/unhide', undefined, { cookie: admin.cookie });
  const after = (await ratingsOf('rep-hide-edit')).body;
  assert.equal([after.count, after.avg, after.distribution['4']], [1, 4, 1]);
  const [counts] = await sql`select stars_1, stars_4 from plugins where id = 'rep-hide-edit'`;
  assert.equal(counts, { stars_1: 0, stars_4: 1 });
});

test('unlist: the plugin becomes rejected with the reason, as a review would; audited with before/after', async () => {
  await insertPlugin(sql, 'rep-unlist', author);
  const filed = await report({ target: { type: 'plugin', plugin: 'rep-unlist' }, reason: 'malware' }, alice);
  const resolved = await resolve(filed.body.report.id, { action: 'unlist', reason: 'Ships malware' });
  assert.is(resolved.status, 200, JSON.stringify(resolved.body));
  const [row] = await sql`select status, review_action, review_reason from plugins where id = 'rep-unlist'`;
  assert.equal(row, { status: 'rejected', review_action: 'reject', review_reason: 'Ships malware' });
  assert.is((await client.get('/apps/api/plugins/rep-unlist')).status, 404);
  const [entry] = await auditOf('rep-unlist');
  assert.is(entry.action, 'report.unlist');
  assert.is(entry.actor, 'rep-admin');
  assert.equal([entry.before.status, entry.after.status, entry.after.reviewReason], ['approved', 'rejected', 'Ships malware']);
  assert.equal([entry.before.reportStatus, entry.after.reportStatus], ['open', 'resolved']);
  // Its author is told, as of any rejection, with the reason.
  const [told] = await sql`select kind, message from notifications where user_id = ${author.id} and plugin_id = 'rep-unlist'`;
  assert.equal({ ...told }, { kind: 'review.rejected', message: 'Your plugin rep-unlist was rejected: Ships malware' });
});

test('dismiss resolves every open report of the target; resolving again is 409; a new report may follow', async () => {
  await insertPlugin(sql, 'rep-dismiss', author);
  const first = await report({ target: { type: 'plugin', plugin: 'rep-dismiss' }, reason: 'broken' }, alice);
  const second = await report({ target: { type: 'plugin', plugin: 'rep-dismiss' }, reason: 'broken' }, bob);
  const resolved = await resolve(first.body.report.id, { action: 'dismiss' });
  assert.is(resolved.status, 200);
  assert.equal(resolved.body.resolved.sort(), [first.body.report.id, second.body.report.id].sort());
  assert.is((await resolve(second.body.report.id, { action: 'dismiss' })).status, 409);
  const open = await queue();
  assert.not.ok(open.body.reports.some((r: any) => r.target.plugin === 'rep-dismiss'));
  const done = await queue('?status=resolved&limit=200');
  assert.ok(done.body.reports.some((r: any) => r.id === second.body.report.id && r.resolution === 'dismiss'));
  assert.is((await report({ target: { type: 'plugin', plugin: 'rep-dismiss' }, reason: 'broken' }, alice)).status, 201);
  const [entry] = await auditOf('rep-dismiss');
  assert.is(entry.action, 'report.dismiss');
});

const badResolutions = [
  { what: 'hide-rating on a report of a plugin', body: { action: 'hide-rating' }, status: 400 },
  { what: 'an unknown action', body: { action: 'ban' }, status: 400 },
];
for (const row of badResolutions) {
  test(`resolve with ${row.what} -> ${row.status}, the report stays open`, async () => {
    const id = `rep-badres-${badResolutions.indexOf(row)}`;
    await insertPlugin(sql, id, author);
    const filed = await report({ target: { type: 'plugin', plugin: id }, reason: 'other' }, alice);
    assert.is((await resolve(filed.body.report.id, row.body)).status, row.status);
    const [stored] = await sql`select status from reports where id = ${filed.body.report.id}`;
    assert.is(stored!.status, 'open');
  });
}

test('resolving: a missing or malformed report id is 404; a user who is not an administrator 403', async () => {
  assert.is((await resolve(999999999, { action: 'dismiss' })).status, 404);
  assert.is((await resolve('abc', { action: 'dismiss' })).status, 404);
  assert.is((await resolve(1, { action: 'dismiss' }, alice)).status, 403);
});

test('a rater name PostgreSQL cannot hold (NUL) or too long: 4xx, never 500', async () => {
  await insertPlugin(sql, 'rep-nul', author);
  for (const user of ['a\u0000b', 'x'.repeat(65)]) {
    const filed = await report({ target: { type: 'rating', plugin: 'rep-nul', user }, reason: 'spam' }, carol);
    assert.is(filed.status, 400, JSON.stringify(filed.body));
    assert.is(filed.body.field, 'target.user');
  }
  for (const user of ['a%00b', 'x'.repeat(300)]) {
    const unhidden = await client.post(`/apps/api/plugins/rep-nul/ratings/${user}/unhide`, {}, { cookie: admin.cookie });
    assert.is(unhidden.status, 404, user);
  }
});

test('at most 10 reports a day per user (429 after); a 409 does not use one up', async () => {
  const dave = await testUser(sql, 'rep-dave');
  for (let i = 0; i < 11; i++) await insertPlugin(sql, `rep-limit-${i}`, author);
  for (let i = 0; i < 10; i++) {
    assert.is((await report({ target: { type: 'plugin', plugin: `rep-limit-${i}` }, reason: 'spam' }, dave)).status, 201, `report ${i}`);
    if (i === 0) assert.is((await report({ target: { type: 'plugin', plugin: 'rep-limit-0' }, reason: 'spam' }, dave)).status, 409);
  }
  const over = await report({ target: { type: 'plugin', plugin: 'rep-limit-10' }, reason: 'spam' }, dave);
  assert.is(over.status, 429);
  assert.is(over.body.code, 'RATE_LIMITED');
  assert.ok(Number(over.headers.get('retry-after')) > 0);
});

test.run();
