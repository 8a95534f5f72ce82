// Rate limits of ratings and replies: at most 20 rating writes (rate, change and
// delete together) and 20 replies per user a minute, counted in PostgreSQL; and
// one notification (and webhook delivery) of a plugin's author per rater a day,
// however often that rater deletes and rates again.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../src/db/pool.js';
import { RATING_WRITES_PER_MINUTE, REPLIES_PER_MINUTE } from '../../../src/services/site/ratings/limits.js';
import { insertPlugin, insertRating, testUser, type TestUser } from '../../helpers/store-fixtures.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { storeClient, type StoreClient, type Answer } from '../store/store-client.js';

let site: TestServer;
let client: StoreClient;
let sql: Sql;
let author: TestUser;

test.before(async () => {
  sql = testSql();
  // No webhook worker: the tests count the deliveries queued, none is sent.
  site = await startTestSite({}, sql, { start: false });
  client = storeClient(site.url);
  author = await testUser(sql, 'lim-author');
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

const ratings = (id: string) => `/apps/api/plugins/${id}/ratings`;
const rate = (id: string, user: TestUser, stars = 4) => client.request('PUT', ratings(id), { cookie: user.cookie, body: { stars } });
const unrate = (id: string, user: TestUser) => client.request('DELETE', ratings(id), { cookie: user.cookie });
const reply = (id: string, to: string, user: TestUser) => client.post(`${ratings(id)}/${to}/replies`, { body: 'Hi' }, { cookie: user.cookie });

function assertLimited(answer: Answer, what: string): void {
  assert.is(answer.status, 429, `${what}: ${JSON.stringify(answer.body)}`);
  assert.is(answer.body.code, 'RATE_LIMITED');
  assert.is(answer.body.success, false);
  const retryAfter = Number(answer.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `${what}: Retry-After ${retryAfter}`);
}

test('ratings and replies have no rate limit (regression): the 21st rating write in a minute, rate, change or delete, is 429 RATE_LIMITED with Retry-After', async () => {
  assert.is(RATING_WRITES_PER_MINUTE, 20);
  const user = await testUser(sql, 'lim-writer');
  const other = await testUser(sql, 'lim-writer2');
  for (let i = 0; i < 3; i++) await insertPlugin(sql, `lim-w${i}`, author);
  const writes = [
    () => rate('lim-w0', user, 1), // rate
    () => rate('lim-w0', user, 2), // change
    () => unrate('lim-w0', user), // delete
    () => rate('lim-w1', user, 3), // another plugin counts too
  ];
  for (let i = 0; i < RATING_WRITES_PER_MINUTE; i++) {
    const answer = await writes[i % writes.length]!();
    assert.is(answer.status, 200, `write ${i + 1}: ${JSON.stringify(answer.body)}`);
  }
  const table = [
    { what: 'a new rating', send: () => rate('lim-w2', user) },
    { what: 'a change', send: () => rate('lim-w1', user, 5) },
    { what: 'a deletion', send: () => unrate('lim-w1', user) },
  ];
  for (const row of table) assertLimited(await row.send(), row.what);
  // Nothing was written past the limit.
  const [{ count }] = await sql`select count(*)::int as count from plugin_ratings where user_id = ${user.id} and plugin_id = 'lim-w2'`;
  assert.is(count, 0);
  const [{ stars }] = await sql`select stars from plugin_ratings where user_id = ${user.id} and plugin_id = 'lim-w1'`;
  assert.is(stars, 3);
  // Per user: another user writes on.
  assert.is((await rate('lim-w2', other)).status, 200);
  // Reading stays open.
  assert.is((await client.get(ratings('lim-w1'), { cookie: user.cookie })).status, 200);
});

test('ratings and replies have no rate limit (regression): the 21st reply in a minute is 429 RATE_LIMITED with Retry-After', async () => {
  assert.is(REPLIES_PER_MINUTE, 20);
  const replier = await testUser(sql, 'lim-replier');
  const rater = await testUser(sql, 'lim-rated');
  await insertPlugin(sql, 'lim-replies', author);
  await insertRating(sql, 'lim-replies', rater, 4);
  for (let i = 0; i < REPLIES_PER_MINUTE; i++) {
    const answer = await reply('lim-replies', 'lim-rated', replier);
    assert.is(answer.status, 201, `reply ${i + 1}: ${JSON.stringify(answer.body)}`);
  }
  assertLimited(await reply('lim-replies', 'lim-rated', replier), 'reply 21');
  const [{ count }] = await sql`select count(*)::int as count from plugin_rating_replies where user_id = ${replier.id}`;
  assert.is(count, REPLIES_PER_MINUTE);
  // Replies and rating writes are counted apart.
  assert.is((await rate('lim-replies', replier)).status, 200);
});

test('five delete-and-rate cycles gave the author five notifications and webhook deliveries (regression): one a day per rater and plugin', async () => {
  const cycler = await testUser(sql, 'lim-cycler');
  const second = await testUser(sql, 'lim-second');
  await insertPlugin(sql, 'lim-notify', author);
  await sql`insert into webhooks (user_id, url, secret) values (${author.id}, 'https://hooks.example.com/in', 'whsec_0123456789abcdef0123456789abcdef')`;
  for (let i = 0; i < 5; i++) {
    assert.is((await rate('lim-notify', cycler, 1 + i)).status, 200);
    assert.is((await unrate('lim-notify', cycler)).status, 200);
  }
  assert.is((await rate('lim-notify', cycler)).status, 200);
  const told = async () =>
    (await sql`select n.kind, actor.username as actor, (select count(*)::int from webhook_deliveries d where d.notification_id = n.id) as deliveries
                 from notifications n join users actor on actor.id = n.actor_id
                where n.user_id = ${author.id} and n.plugin_id = 'lim-notify' order by n.id`).map((row) => ({ ...row }));
  assert.equal(await told(), [{ kind: 'rating.created', actor: 'lim-cycler', deliveries: 1 }]);
  // Another rater of the same plugin is news.
  assert.is((await rate('lim-notify', second)).status, 200);
  assert.equal((await told()).map((row) => row.actor), ['lim-cycler', 'lim-second']);
  // A day later the same rater's new rating notifies again.
  await sql`update rating_notices set notified_at = notified_at - interval '1 day 1 minute' where plugin_id = 'lim-notify' and user_id = ${cycler.id}`;
  assert.is((await unrate('lim-notify', cycler)).status, 200);
  assert.is((await rate('lim-notify', cycler)).status, 200);
  assert.equal((await told()).map((row) => row.actor), ['lim-cycler', 'lim-second', 'lim-cycler']);
});

test.run();
