// Ratings and replies over HTTP against the real site: one test per row of docs/api.md's
// endpoint table for them, and the rules of its "Ratings and replies"
// (shapes, order, paging, own plugin, cascade, agreement with the plugin record).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../src/db/pool.js';
import { insertPlugin, insertReply, testUser, type TestUser } from '../../helpers/store-fixtures.js';
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

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ratings = (id: string) => `/apps/api/plugins/${id}/ratings`;

test.before(async () => {
  sql = testSql();
  site = await startTestSite();
  client = storeClient(site.url);
  author = await testUser(sql, 'api-author');
  alice = await testUser(sql, 'api-alice');
  bob = await testUser(sql, 'api-bob');
  carol = await testUser(sql, 'api-carol');
  admin = await testUser(sql, 'api-admin', { admin: true });
});
// These tests check the API's rules, not its rate limit (rate-limits.test.ts does):
// the same few users write far more than 20 times a minute here, so each test
// starts with their counts forgotten.
test.before.each(async () => {
  const users = [author, alice, bob, carol, admin].map((user) => user.id);
  await sql`delete from rate_limits where limiter in ('rating-writes', 'rating-replies') and key = any(${users})`;
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

const put = (id: string, body: unknown, user: TestUser) => client.request('PUT', ratings(id), { cookie: user.cookie, body });
const remove = (id: string, user: TestUser) => client.request('DELETE', ratings(id), { cookie: user.cookie });
const reply = (id: string, to: string, body: unknown, user: TestUser) =>
  client.post(`${ratings(id)}/${encodeURIComponent(to)}/replies`, body, { cookie: user.cookie });
const removeReply = (id: string, replyId: unknown, user?: TestUser) =>
  client.request('DELETE', `${ratings(id)}/replies/${replyId}`, user ? { cookie: user.cookie } : {});

test('GET ratings (visitor): statistics, an empty page, limit and offset, no myRating', async () => {
  await insertPlugin(sql, 'read-empty', author);
  const answer = await client.get(ratings('read-empty'));
  assert.is(answer.status, 200);
  assert.equal(answer.body, {
    success: true,
    avg: 0,
    count: 0,
    distribution: { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0 },
    ratings: [],
    limit: 20,
    offset: 0,
  });
  assert.not.ok('myRating' in answer.body);
  assert.is(answer.headers.get('cache-control'), 'no-store');
});

test('GET ratings (logged in): myRating is null without a rating, the entry with one', async () => {
  await insertPlugin(sql, 'read-mine', author);
  let answer = await client.get(ratings('read-mine'), { cookie: alice.cookie });
  assert.is(answer.status, 200);
  assert.is(answer.body.myRating, null);
  await put('read-mine', { stars: 4, comment: 'nice' }, alice);
  answer = await client.get(ratings('read-mine'), { cookie: alice.cookie });
  assert.is(answer.body.myRating.user, 'api-alice');
  assert.is(answer.body.myRating.stars, 4);
  // Another user's myRating is their own, not the first on the page.
  answer = await client.get(ratings('read-mine'), { cookie: bob.cookie });
  assert.is(answer.body.myRating, null);
  assert.is(answer.body.ratings.length, 1);
});

test('PUT ratings: adds the rating and answers {success, rating, avg, count, distribution}', async () => {
  await insertPlugin(sql, 'put-one', author);
  const answer = await put('put-one', { stars: 5, comment: 'Great plugin' }, alice);
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(Object.keys(answer.body).sort(), ['avg', 'count', 'distribution', 'rating', 'success']);
  assert.is(answer.body.success, true);
  assert.is(answer.body.avg, 5);
  assert.is(answer.body.count, 1);
  assert.equal(answer.body.distribution, { '1': 0, '2': 0, '3': 0, '4': 0, '5': 1 });
  const rating = answer.body.rating;
  assert.is(rating.user, 'api-alice');
  assert.is(rating.avatar, 'https://avatars.example/api-alice.png');
  assert.is(rating.stars, 5);
  assert.is(rating.comment, 'Great plugin');
  assert.match(rating.createdAt, ISO);
  assert.match(rating.updatedAt, ISO);
  assert.equal(rating.replies, []);
});

test('PUT ratings again: updates the one rating (count unchanged); without comment the comment stays', async () => {
  await insertPlugin(sql, 'put-again', author);
  const first = await put('put-again', { stars: 2, comment: 'meh' }, alice);
  const second = await put('put-again', { stars: 4 }, alice);
  assert.is(second.status, 200);
  assert.is(second.body.count, 1);
  assert.is(second.body.avg, 4);
  assert.equal(second.body.distribution, { '1': 0, '2': 0, '3': 0, '4': 1, '5': 0 });
  assert.is(second.body.rating.comment, 'meh');
  assert.is(second.body.rating.createdAt, first.body.rating.createdAt);
  assert.ok(second.body.rating.updatedAt >= first.body.rating.updatedAt);
  const cleared = await put('put-again', { stars: 4, comment: null }, alice);
  assert.is(cleared.body.rating.comment, '');
});

test('PUT ratings: the submitter may not rate their own plugin (403 FORBIDDEN)', async () => {
  await insertPlugin(sql, 'put-own', author);
  const answer = await put('put-own', { stars: 5 }, author);
  assert.is(answer.status, 403);
  assert.is(answer.body.code, 'FORBIDDEN');
  assert.is(answer.body.success, false);
  assert.is((await client.get(ratings('put-own'))).body.count, 0);
});

test('PUT ratings: only approved plugins are rated, even by an administrator who sees the others (404)', async () => {
  await insertPlugin(sql, 'put-pending', author, 'pending');
  const answer = await put('put-pending', { stars: 5 }, admin);
  assert.is(answer.status, 404);
  assert.is(answer.body.code, 'NOT_FOUND');
});

test('PUT ratings: a missing plugin is 404, an id in another case finds the plugin', async () => {
  assert.is((await put('no-such-plugin', { stars: 3 }, alice)).status, 404);
  await insertPlugin(sql, 'Put-Case', author);
  const answer = await put('put-CASE', { stars: 3 }, alice);
  assert.is(answer.status, 200);
  assert.is((await client.get(ratings('Put-Case'))).body.count, 1);
});

test('writes need a login (401 UNAUTHORIZED), before the body is read', async () => {
  await insertPlugin(sql, 'login-needed', author);
  const cases = [
    { what: 'PUT rating', method: 'PUT', path: ratings('login-needed'), body: { stars: 5 } },
    { what: 'DELETE rating', method: 'DELETE', path: ratings('login-needed') },
    { what: 'POST reply', method: 'POST', path: `${ratings('login-needed')}/api-alice/replies`, body: { body: 'hi' } },
    { what: 'DELETE reply', method: 'DELETE', path: `${ratings('login-needed')}/replies/1` },
  ];
  for (const c of cases) {
    const answer = await client.request(c.method, c.path, c.body ? { body: c.body } : {});
    assert.is(answer.status, 401, c.what);
    assert.is(answer.body.code, 'UNAUTHORIZED', c.what);
  }
});

test('PUT and POST need Content-Type: application/json (415)', async () => {
  await insertPlugin(sql, 'json-only', author);
  for (const path of [ratings('json-only'), `${ratings('json-only')}/api-alice/replies`]) {
    const response = await fetch(site.url + path, {
      method: path.endsWith('replies') ? 'POST' : 'PUT',
      headers: { cookie: alice.cookie, 'content-type': 'text/plain' },
      body: '{"stars":5,"body":"x"}',
    });
    assert.is(response.status, 415, path);
    assert.is(((await response.json()) as { code: string }).code, 'UNSUPPORTED_MEDIA_TYPE');
  }
});

test('a write with the session cookie from another origin is refused (403) and changes nothing', async () => {
  await insertPlugin(sql, 'cross-site', author);
  const response = await fetch(site.url + ratings('cross-site'), {
    method: 'PUT',
    headers: { cookie: alice.cookie, 'content-type': 'application/json', origin: 'https://evil.example' },
    body: JSON.stringify({ stars: 1 }),
  });
  assert.is(response.status, 403);
  assert.is(((await response.json()) as { code: string }).code, 'FORBIDDEN');
  assert.is((await client.get(ratings('cross-site'))).body.count, 0);
  const own = await fetch(site.url + ratings('cross-site'), {
    method: 'PUT',
    headers: { cookie: alice.cookie, 'content-type': 'application/json', origin: 'http://site.test' },
    body: JSON.stringify({ stars: 1 }),
  });
  assert.is(own.status, 200);
});

test('DELETE ratings: deletes the caller\'s rating and answers the statistics after it; 404 when there is none', async () => {
  await insertPlugin(sql, 'delete-one', author);
  await put('delete-one', { stars: 5 }, alice);
  await put('delete-one', { stars: 1 }, bob);
  const answer = await remove('delete-one', alice);
  assert.is(answer.status, 200);
  assert.equal(answer.body, { success: true, avg: 1, count: 1, distribution: { '1': 1, '2': 0, '3': 0, '4': 0, '5': 0 } });
  const page = await client.get(ratings('delete-one'), { cookie: alice.cookie });
  assert.is(page.body.myRating, null);
  assert.equal(page.body.ratings.map((r: { user: string }) => r.user), ['api-bob']);
  const again = await remove('delete-one', alice);
  assert.is(again.status, 404);
  assert.is(again.body.code, 'NOT_FOUND');
});

test('deleting a rating deletes its replies', async () => {
  await insertPlugin(sql, 'delete-cascade', author);
  await put('delete-cascade', { stars: 3 }, alice);
  assert.is((await reply('delete-cascade', 'api-alice', { body: 'Thanks!' }, author)).status, 201);
  assert.is((await reply('delete-cascade', 'api-alice', { body: 'Agreed' }, bob)).status, 201);
  assert.is((await remove('delete-cascade', alice)).status, 200);
  const [{ count }] = await sql<Array<{ count: number }>>`
    select count(*)::integer as count from plugin_rating_replies where plugin_id = 'delete-cascade'`;
  assert.is(count, 0);
  // Rating again starts a fresh thread: the old replies do not come back.
  const again = await put('delete-cascade', { stars: 4 }, alice);
  assert.equal(again.body.rating.replies, []);
});

test('POST reply: 201 {success, reply} with {id, user, avatar, body, createdAt}; shown under the rating', async () => {
  await insertPlugin(sql, 'reply-one', author);
  await put('reply-one', { stars: 2, comment: 'Crashes on start' }, alice);
  const answer = await reply('reply-one', 'api-alice', { body: '  Fixed in 1.0.1  ' }, author);
  assert.is(answer.status, 201, JSON.stringify(answer.body));
  assert.is(answer.body.success, true);
  const created = answer.body.reply;
  assert.equal(Object.keys(created).sort(), ['avatar', 'body', 'createdAt', 'id', 'user']);
  assert.type(created.id, 'number');
  assert.is(created.user, 'api-author');
  assert.is(created.avatar, 'https://avatars.example/api-author.png');
  assert.is(created.body, 'Fixed in 1.0.1');
  assert.match(created.createdAt, ISO);
  const page = await client.get(ratings('reply-one'));
  assert.equal(page.body.ratings[0].replies, [created]);
  assert.is(page.body.ratings[0].replyCount, 1);
});

test('POST reply: `comment` is accepted as an alias of `body`; `body` wins when both are sent', async () => {
  await insertPlugin(sql, 'reply-alias', author);
  await put('reply-alias', { stars: 4 }, alice);
  const alias = await reply('reply-alias', 'api-alice', { comment: 'via comment' }, bob);
  assert.is(alias.status, 201);
  assert.is(alias.body.reply.body, 'via comment');
  const both = await reply('reply-alias', 'api-alice', { body: 'the body', comment: 'the comment' }, bob);
  assert.is(both.body.reply.body, 'the body');
});

test('POST reply: the rating user is found case-insensitively, and may answer their own rating', async () => {
  await insertPlugin(sql, 'reply-case', author);
  await put('reply-case', { stars: 4 }, alice);
  assert.is((await reply('reply-case', 'API-ALICE', { body: 'hello' }, bob)).status, 201);
  assert.is((await reply('reply-case', 'api-alice', { body: 'thanks' }, alice)).status, 201);
});

test('POST reply: 404 when that user has no rating on the plugin (or no such user)', async () => {
  await insertPlugin(sql, 'reply-none', author);
  await insertPlugin(sql, 'reply-elsewhere', author);
  await put('reply-elsewhere', { stars: 5 }, alice);
  for (const [what, to] of [
    ['user without a rating here (rated another plugin)', 'api-alice'],
    ['unknown user', 'nobody-at-all'],
    ['overlong user name', 'x'.repeat(300)],
    // PostgreSQL text cannot hold a NUL: no such user, never a 500.
    ['a NUL in the user name', 'api-\u0000alice'],
  ] as const) {
    const answer = await reply('reply-none', to, { body: 'hi' }, bob);
    assert.is(answer.status, 404, what);
    assert.is(answer.body.code, 'NOT_FOUND', what);
  }
});

test('DELETE reply: its author may; another user gets 403; an administrator may', async () => {
  await insertPlugin(sql, 'reply-delete', author);
  await put('reply-delete', { stars: 3 }, alice);
  const byBob = (await reply('reply-delete', 'api-alice', { body: 'first' }, bob)).body.reply.id;
  const byCarol = (await reply('reply-delete', 'api-alice', { body: 'second' }, carol)).body.reply.id;

  const refused = await removeReply('reply-delete', byBob, carol);
  assert.is(refused.status, 403);
  assert.is(refused.body.code, 'FORBIDDEN');
  // Not even the rating's author or the plugin's submitter may delete another's reply.
  assert.is((await removeReply('reply-delete', byBob, alice)).status, 403);
  assert.is((await removeReply('reply-delete', byBob, author)).status, 403);

  const own = await removeReply('reply-delete', byBob, bob);
  assert.is(own.status, 200);
  assert.equal(own.body, { success: true });
  const moderated = await removeReply('reply-delete', byCarol, admin);
  assert.is(moderated.status, 200);
  assert.equal((await client.get(ratings('reply-delete'))).body.ratings[0].replies, []);
});

test('DELETE reply: 404 when absent, malformed, already deleted, or on another plugin', async () => {
  await insertPlugin(sql, 'reply-404-a', author);
  await insertPlugin(sql, 'reply-404-b', author);
  await put('reply-404-a', { stars: 3 }, alice);
  const id = (await reply('reply-404-a', 'api-alice', { body: 'x' }, bob)).body.reply.id;
  for (const [what, plugin, replyId] of [
    ['never existed', 'reply-404-a', 987654321],
    ['not a number', 'reply-404-a', 'abc'],
    ['zero', 'reply-404-a', '0'],
    ['beyond bigint', 'reply-404-a', '99999999999999999999999'],
    ['reply of another plugin', 'reply-404-b', id],
    ['plugin missing', 'no-such-plugin', id],
  ] as const) {
    const answer = await removeReply(plugin, replyId, bob);
    assert.is(answer.status, 404, what);
    assert.is(answer.body.code, 'NOT_FOUND', what);
  }
  assert.is((await removeReply('reply-404-a', id, bob)).status, 200);
  assert.is((await removeReply('reply-404-a', id, bob)).status, 404, 'already deleted');
});

test('lists are newest first: ratings by their last change, replies by creation', async () => {
  await insertPlugin(sql, 'order', author);
  await put('order', { stars: 1 }, alice);
  await put('order', { stars: 2 }, bob);
  await put('order', { stars: 3 }, carol);
  await put('order', { stars: 5 }, alice); // alice's change makes hers the newest
  const first = (await reply('order', 'api-bob', { body: 'one' }, carol)).body.reply.id;
  const second = (await reply('order', 'api-bob', { body: 'two' }, alice)).body.reply.id;
  const page = (await client.get(ratings('order'))).body;
  assert.equal(page.ratings.map((r: { user: string }) => r.user), ['api-alice', 'api-carol', 'api-bob']);
  assert.equal(page.ratings[2].replies.map((r: { id: number }) => r.id), [second, first]);
});

test('paging: limit and offset walk the ratings without gaps or repeats; default limit 20, up to 50', async () => {
  await insertPlugin(sql, 'paging', author);
  const raters: TestUser[] = [];
  for (let i = 0; i < 55; i++) raters.push(await testUser(sql, `pager-${String(i).padStart(2, '0')}`));
  // Straight into the table, with distinct times, so the order is known.
  await sql`
    insert into plugin_ratings (plugin_id, user_id, stars, created_at, updated_at)
    select 'paging', u.id, 1 + (row_number() over (order by u.username)) % 5,
           now() - make_interval(mins => (row_number() over (order by u.username))::integer),
           now() - make_interval(mins => (row_number() over (order by u.username))::integer)
      from users u where u.username like 'pager-%'`;
  const expected = raters.map((r) => r.username); // pager-00 is the newest
  const byDefault = (await client.get(ratings('paging'))).body;
  assert.is(byDefault.limit, 20);
  assert.equal(byDefault.ratings.map((r: { user: string }) => r.user), expected.slice(0, 20));
  assert.is(byDefault.count, 55);
  const seen: string[] = [];
  for (let offset = 0; offset < 60; offset += 7) {
    const page = (await client.get(`${ratings('paging')}?limit=7&offset=${offset}`)).body;
    assert.is(page.offset, offset);
    assert.is(page.limit, 7);
    seen.push(...page.ratings.map((r: { user: string }) => r.user));
  }
  assert.equal(seen, expected);
  assert.is((await client.get(`${ratings('paging')}?limit=50`)).body.ratings.length, 50);
  assert.equal((await client.get(`${ratings('paging')}?offset=1000`)).body.ratings, []);
});

test('comment and reply lengths count characters (code points), not bytes or UTF-16 units', async () => {
  await insertPlugin(sql, 'lengths', author);
  const emoji500 = '😀'.repeat(500);
  const rated = await put('lengths', { stars: 5, comment: emoji500 }, alice);
  assert.is(rated.status, 200);
  assert.is(rated.body.rating.comment, emoji500);
  const replied = await reply('lengths', 'api-alice', { body: '字'.repeat(500) }, bob);
  assert.is(replied.status, 201);
  assert.is((await put('lengths', { stars: 5, comment: '😀'.repeat(501) }, alice)).status, 400);
});

test("a plugin's ratingAvg and ratingCount agree with its ratings (detail and list)", async () => {
  await insertPlugin(sql, 'agree', author, 'approved', { tags: sql.array(['agree-tag'], 25) });
  await put('agree', { stars: 5 }, alice);
  await put('agree', { stars: 4 }, bob);
  const last = await put('agree', { stars: 2 }, carol);
  await remove('agree', bob);
  const stats = (await client.get(ratings('agree'))).body;
  assert.is(stats.count, 2);
  assert.is(stats.avg, 3.5);
  assert.is(last.body.avg, 11 / 3);
  const detail = (await client.get('/apps/api/plugins/agree')).body.plugin;
  assert.is(detail.ratingAvg, stats.avg);
  assert.is(detail.ratingCount, stats.count);
  const listed = (await client.get('/apps/api/plugins?public=1&tag=agree-tag')).body.plugins;
  assert.equal(listed.map((p: { ratingAvg: number; ratingCount: number }) => [p.ratingAvg, p.ratingCount]), [[3.5, 2]]);
});

test('rating does not change the plugin\'s updatedAt (that is for content changes and reviews)', async () => {
  await insertPlugin(sql, 'untouched', author);
  const before = (await client.get('/apps/api/plugins/untouched')).body.plugin.updatedAt;
  await put('untouched', { stars: 5 }, alice);
  assert.is((await client.get('/apps/api/plugins/untouched')).body.plugin.updatedAt, before);
});

test('a rating shows its 50 newest replies and how many it has', async () => {
  await insertPlugin(sql, 'many-replies', author);
  await put('many-replies', { stars: 5 }, alice);
  for (let i = 0; i < 53; i++) await insertReply(sql, 'many-replies', alice, bob, `reply ${i}`);
  const entry = (await client.get(ratings('many-replies'))).body.ratings[0];
  assert.is(entry.replies.length, 50);
  assert.is(entry.replyCount, 53);
  assert.is(entry.replies[0].body, 'reply 52');
});

test('HEAD ratings answers like GET without a body', async () => {
  await insertPlugin(sql, 'head-ratings', author);
  const response = await fetch(site.url + ratings('head-ratings'), { method: 'HEAD' });
  assert.is(response.status, 200);
  assert.is(await response.text(), '');
});

test.run();
