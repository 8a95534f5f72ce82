// Moderation that sticks: a hidden rating stays hidden when its rater deletes it and
// rates again (a moderation record per plugin and rater outlives the rating), until
// an administrator unhides it; and a hidden rating answers 404 to everyone but its
// rater and administrators (replies, their deletion, reports), with no notification.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../src/db/pool.js';
import { insertPlugin, insertRating, insertReply, testUser, type TestUser } from '../../helpers/store-fixtures.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { storeClient, type StoreClient } from '../store/store-client.js';

let site: TestServer;
let client: StoreClient;
let sql: Sql;
let author: TestUser;
let rater: TestUser;
let other: TestUser;
let reporter: TestUser;
let admin: TestUser;

test.before(async () => {
  sql = testSql();
  site = await startTestSite();
  client = storeClient(site.url);
  author = await testUser(sql, 'hide-author');
  other = await testUser(sql, 'hide-other');
  reporter = await testUser(sql, 'hide-reporter');
  admin = await testUser(sql, 'hide-admin', { admin: true });
});
// Each test rates as a rater of its own: the limit of 20 rating writes a minute is per user.
let raters = 0;
test.before.each(async () => {
  rater = await testUser(sql, `hide-rater-${++raters}`);
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

const ratings = (id: string) => `/apps/api/plugins/${id}/ratings`;
const rate = (id: string, stars: number, user = rater) => client.request('PUT', ratings(id), { cookie: user.cookie, body: { stars, comment: `${stars} stars` } });
const unrate = (id: string, user = rater) => client.request('DELETE', ratings(id), { cookie: user.cookie });
const page = (id: string, user?: TestUser) => client.get(ratings(id), user ? { cookie: user.cookie } : {});
const reply = (id: string, to: string, user: TestUser) => client.post(`${ratings(id)}/${to}/replies`, { body: 'An answer' }, { cookie: user.cookie });
const unhide = (id: string, to: string) => client.post(`${ratings(id)}/${to}/unhide`, undefined, { cookie: admin.cookie });
const notificationsOf = async (user: TestUser, plugin: string) => (await sql`select kind from notifications where user_id = ${user.id} and plugin_id = ${plugin}`).map((row) => row.kind as string);

/** Reports `rater`'s rating of `id` and resolves the report with hide-rating. */
async function hide(id: string, user = rater): Promise<void> {
  const filed = await client.post('/apps/api/reports', { target: { type: 'rating', plugin: id, user: user.username }, reason: 'abuse' }, { cookie: reporter.cookie });
  assert.is(filed.status, 201, JSON.stringify(filed.body));
  const resolved = await client.post(`/apps/api/reports/${filed.body.report.id}/resolve`, { action: 'hide-rating' }, { cookie: admin.cookie });
  assert.is(resolved.status, 200, JSON.stringify(resolved.body));
}

test('a hidden rating comes back by deleting it and rating again (regression): the re-rating is hidden too, until unhidden', async () => {
  await insertPlugin(sql, 'hide-sticks', author);
  await insertRating(sql, 'hide-sticks', other, 5);
  assert.is((await rate('hide-sticks', 1)).status, 200);
  await hide('hide-sticks');
  assert.is((await unrate('hide-sticks')).status, 200);

  const again = await rate('hide-sticks', 2);
  assert.is(again.status, 200, JSON.stringify(again.body));
  // The statistics leave the hidden re-rating out; its rater's answer says it is hidden.
  assert.equal([again.body.count, again.body.avg], [1, 5]);
  assert.is(again.body.rating.hidden, true);
  assert.is(again.body.rating.stars, 2);

  const visitor = (await page('hide-sticks')).body;
  assert.equal([visitor.count, visitor.avg, visitor.distribution['2']], [1, 5, 0]);
  assert.equal(visitor.ratings.map((r: any) => r.user), ['hide-other']);
  const own = (await page('hide-sticks', rater)).body;
  assert.equal(own.ratings.map((r: any) => r.user), ['hide-other']);
  assert.equal([own.myRating.user, own.myRating.stars, own.myRating.hidden], [rater.username, 2, true]);
  assert.is((await client.get('/apps/api/plugins/hide-sticks')).body.plugin.ratingCount, 1);

  // Deleting and rating again any number of times keeps it hidden.
  assert.is((await unrate('hide-sticks')).status, 200);
  assert.is((await rate('hide-sticks', 3)).body.rating.hidden, true);
  assert.is((await page('hide-sticks')).body.count, 1);

  const shown = await unhide('hide-sticks', rater.username);
  assert.is(shown.status, 200, JSON.stringify(shown.body));
  assert.equal([shown.body.count, shown.body.avg], [2, 4]);
  const after = (await page('hide-sticks', rater)).body;
  assert.is(after.myRating.hidden, false);
  assert.equal(after.ratings.map((r: any) => r.user).sort(), ['hide-other', rater.username]);
  // Unhidden for good: deleting and rating again is visible.
  assert.is((await unrate('hide-sticks')).status, 200);
  assert.is((await rate('hide-sticks', 4)).body.rating.hidden, false);
  assert.is((await page('hide-sticks')).body.count, 2);
});

test('a rating deleted before its report was resolved is hidden when it comes back; unhide clears the record (200), then 404', async () => {
  await insertPlugin(sql, 'hide-gone', author);
  assert.is((await rate('hide-gone', 1)).status, 200);
  const filed = await client.post('/apps/api/reports', { target: { type: 'rating', plugin: 'hide-gone', user: rater.username }, reason: 'spam' }, { cookie: reporter.cookie });
  assert.is((await unrate('hide-gone')).status, 200);
  assert.is((await client.post(`/apps/api/reports/${filed.body.report.id}/resolve`, { action: 'hide-rating' }, { cookie: admin.cookie })).status, 200);
  assert.is((await rate('hide-gone', 1)).body.rating.hidden, true);
  assert.is((await page('hide-gone')).body.count, 0);
  assert.is((await unrate('hide-gone')).status, 200);
  // No rating now, but a record: unhiding it is 200 and audited.
  assert.is((await unhide('hide-gone', rater.username)).status, 200);
  assert.is((await rate('hide-gone', 1)).body.rating.hidden, false);
  assert.is((await unrate('hide-gone')).status, 200);
  const [entry] = (await client.get('/apps/api/audit?plugin=hide-gone', { cookie: admin.cookie })).body.entries;
  assert.equal([entry.action, entry.before.hidden, entry.after.hidden], ['rating.unhide', true, false]);
  // Neither a rating nor a record: 404 as before.
  assert.is((await unhide('hide-gone', 'hide-other')).status, 404);
});

test('a rating inserted directly while its rater is hidden is hidden (the database holds the rule, whatever writes it)', async () => {
  await insertPlugin(sql, 'hide-direct', author);
  await insertRating(sql, 'hide-direct', rater, 1);
  await hide('hide-direct');
  await sql`delete from plugin_ratings where plugin_id = 'hide-direct'`;
  await insertRating(sql, 'hide-direct', rater, 1);
  const [row] = await sql`select r.hidden, p.stars_1 from plugin_ratings r join plugins p on p.id = r.plugin_id where r.plugin_id = 'hide-direct'`;
  assert.equal({ ...row }, { hidden: true, stars_1: 0 });
});

test('replies are accepted on hidden ratings (regression): 404 to others, as for no rating; the rater and administrators may; nobody is notified', async () => {
  await insertPlugin(sql, 'hide-reply', author);
  assert.is((await rate('hide-reply', 1)).status, 200);
  const replyId = await insertReply(sql, 'hide-reply', rater, other, 'Before the hide');
  await hide('hide-reply');
  await sql`delete from notifications where plugin_id = 'hide-reply'`;

  for (const user of [other, author]) {
    const refused = await reply('hide-reply', rater.username, user);
    assert.is(refused.status, 404, `${user.username}: ${JSON.stringify(refused.body)}`);
    assert.is(refused.body.code, 'NOT_FOUND');
    // The same answer as for a user who never rated it.
    assert.equal(refused.body, (await reply('hide-reply', 'hide-reporter', user)).body);
  }
  assert.is((await reply('hide-reply', rater.username, rater)).status, 201);
  assert.is((await reply('hide-reply', rater.username, admin)).status, 201);
  assert.equal(await notificationsOf(author, 'hide-reply'), []);
  assert.equal(await notificationsOf(rater, 'hide-reply'), []);
  const [{ count }] = await sql`select count(*)::int as count from plugin_rating_replies where plugin_id = 'hide-reply'`;
  assert.is(count, 3);

  // Deleting a reply under a hidden rating: 404 to anyone but the rater and administrators, even its author.
  const removeReply = (user: TestUser) => client.request('DELETE', `${ratings('hide-reply')}/replies/${replyId}`, { cookie: user.cookie });
  assert.is((await removeReply(other)).status, 404);
  assert.is((await removeReply(author)).status, 404);
  assert.is((await removeReply(rater)).status, 403);
  assert.is((await removeReply(admin)).status, 200);
});

test('201 versus 404 reveals that a hidden rating exists (regression): reporting it is 404 to others', async () => {
  await insertPlugin(sql, 'hide-report', author);
  assert.is((await rate('hide-report', 1)).status, 200);
  await hide('hide-report');
  const again = await client.post('/apps/api/reports', { target: { type: 'rating', plugin: 'hide-report', user: rater.username }, reason: 'abuse' }, { cookie: other.cookie });
  assert.is(again.status, 404, JSON.stringify(again.body));
  const never = await client.post('/apps/api/reports', { target: { type: 'rating', plugin: 'hide-report', user: 'hide-reporter' }, reason: 'abuse' }, { cookie: other.cookie });
  assert.equal(again.body, never.body);
  // An administrator still may.
  assert.is((await client.post('/apps/api/reports', { target: { type: 'rating', plugin: 'hide-report', user: rater.username }, reason: 'abuse' }, { cookie: admin.cookie })).status, 201);
});

test('a hidden re-rating does not notify the author', async () => {
  await insertPlugin(sql, 'hide-quiet', author);
  await insertRating(sql, 'hide-quiet', rater, 1);
  await hide('hide-quiet');
  await sql`delete from plugin_ratings where plugin_id = 'hide-quiet'`;
  await sql`delete from notifications where plugin_id = 'hide-quiet'`;
  assert.is((await rate('hide-quiet', 1)).status, 200);
  assert.equal(await notificationsOf(author, 'hide-quiet'), []);
});

test.run();
