// A logged-in caller's ratings page is kept per caller and generations
// (src/services/site/ratings/kept-pages.ts, sql/008). Pinned here: after every kind of write,
// committed through another site process or in plain SQL, the page a process kept is
// field by field the page built afresh, for the plugin's author, a rater whose
// rating is hidden, an administrator and a player, including what each may see
// (`myRating` with `hidden` for its rater, 404 for a plugin they may not see).
// Replies and avatars move no store generation: a page kept on that alone would be
// stale after them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPool } from '../../../src/db/pool.js';
import { insertPlugin, insertRating, testUser, type TestUser } from '../../helpers/store-fixtures.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { storeClient, type StoreClient } from '../store/store-client.js';

const sql = testSql();
const secondSql = createPool(process.env.TEST_DB_URL!);
let first: TestServer;
let second: TestServer;
let reader: StoreClient;
let writer: StoreClient;
let author: TestUser;
let rater: TestUser;
let other: TestUser;
let player: TestUser;
let reporter: TestUser;
let admin: TestUser;

const PLUGIN = 'kept-ratings';
const ratings = `/apps/api/plugins/${PLUGIN}/ratings`;

test.before(async () => {
  first = await startTestSite();
  second = await startTestSite({}, secondSql);
  reader = storeClient(first.url);
  writer = storeClient(second.url);
  author = await testUser(sql, 'kp-author');
  rater = await testUser(sql, 'kp-rater');
  other = await testUser(sql, 'kp-other');
  player = await testUser(sql, 'kp-player');
  reporter = await testUser(sql, 'kp-reporter');
  admin = await testUser(sql, 'kp-admin', { admin: true });
  await insertPlugin(sql, PLUGIN, author);
  await insertRating(sql, PLUGIN, other, 4, 'solid');
  await insertRating(sql, PLUGIN, rater, 2, 'meh');
});
test.after(async () => {
  await first.close();
  await second.close();
  await secondSql.end({ timeout: 2 });
  await closeTestSql();
});

let fresh = 0;
/**
 * The page `user` reads on the first process (kept after its first read), and the
 * same page built afresh there: asked with a `limit` never asked before (a question
 * of its own, so built now), which changes nothing but `limit` with this few ratings.
 */
async function keptAndFresh(user: TestUser) {
  const kept = await reader.get(`${ratings}?limit=20`, { cookie: user.cookie });
  const built = await reader.get(`${ratings}?limit=${21 + (fresh++ % 29)}`, { cookie: user.cookie });
  if (built.status === 200) built.body.limit = 20;
  return { kept, built };
}

const viewers = () => [
  { what: 'the plugin\'s author', user: author },
  { what: 'a rater (hidden in some steps)', user: rater },
  { what: 'an administrator', user: admin },
  { what: 'a player who has not rated', user: player },
];

async function assertExact(step: string): Promise<void> {
  for (const { what, user } of viewers()) {
    const { kept, built } = await keptAndFresh(user);
    assert.is(kept.status, built.status, `${step}, ${what}: status`);
    assert.equal(kept.body, built.body, `${step}, ${what}: the kept page is the page built afresh`);
    // Asked again: still the same (the kept one served).
    assert.equal((await reader.get(`${ratings}?limit=20`, { cookie: user.cookie })).body, kept.body, `${step}, ${what}: again`);
  }
}

const mine = async (user: TestUser) => (await reader.get(ratings, { cookie: user.cookie })).body.myRating;
const shown = async (user: TestUser) => (await reader.get(ratings, { cookie: user.cookie })).body.ratings.map((r: { user: string }) => r.user);

async function hideRaters(): Promise<void> {
  const filed = await writer.post('/apps/api/reports', { target: { type: 'rating', plugin: PLUGIN, user: rater.username }, reason: 'abuse' }, { cookie: reporter.cookie });
  assert.is(filed.status, 201, JSON.stringify(filed.body));
  const resolved = await writer.post(`/apps/api/reports/${filed.body.report.id}/resolve`, { action: 'hide-rating' }, { cookie: admin.cookie });
  assert.is(resolved.status, 200, JSON.stringify(resolved.body));
}

test('a logged-in caller\'s kept ratings page is exact after every write from another process: replies, names, avatars, hides, re-ratings, status', async () => {
  await assertExact('first reads');

  let replyId = 0;
  const steps: Array<{ what: string; write: () => Promise<void>; check?: () => Promise<void> }> = [
    {
      what: 'a reply by the author (moves no store generation)',
      write: async () => {
        const answer = await writer.post(`${ratings}/${rater.username}/replies`, { body: 'Thanks, noted' }, { cookie: author.cookie });
        assert.is(answer.status, 201, JSON.stringify(answer.body));
        replyId = answer.body.reply.id;
      },
      check: async () => assert.is((await mine(rater)).replyCount, 1),
    },
    {
      what: 'an avatar changed in plain SQL (moves no store generation)',
      write: async () => void (await sql`update users set avatar = 'https://avatars.example/kp-author-2.png' where id = ${author.id}`),
      check: async () => assert.is((await mine(rater)).replies[0].avatar, 'https://avatars.example/kp-author-2.png'),
    },
    {
      what: 'a rater renamed in plain SQL',
      write: async () => void (await sql`update users set username = 'kp-other-renamed' where id = ${other.id}`),
      check: async () => assert.ok((await shown(player)).includes('kp-other-renamed')),
    },
    {
      what: 'a reply deleted by its author',
      write: async () => assert.is((await writer.request('DELETE', `${ratings}/replies/${replyId}`, { cookie: author.cookie })).status, 200),
      check: async () => assert.is((await mine(rater)).replyCount, 0),
    },
    {
      what: 'the rater\'s comment changed, stars kept',
      write: async () => assert.is((await writer.request('PUT', ratings, { cookie: rater.cookie, body: { stars: 2, comment: 'meh, really' } })).status, 200),
      check: async () => assert.is((await mine(rater)).comment, 'meh, really'),
    },
    {
      what: 'the rater\'s rating hidden by an administrator',
      write: hideRaters,
      check: async () => {
        assert.is((await mine(rater)).hidden, true);
        assert.not.ok((await shown(admin)).includes(rater.username));
      },
    },
    {
      what: 'the hidden rating deleted and rated again (starts hidden, moves no star count)',
      write: async () => {
        assert.is((await writer.request('DELETE', ratings, { cookie: rater.cookie })).status, 200);
        assert.is((await writer.request('PUT', ratings, { cookie: rater.cookie, body: { stars: 1, comment: 'again' } })).status, 200);
      },
      check: async () => {
        const own = await mine(rater);
        assert.equal([own.stars, own.comment, own.hidden], [1, 'again', true]);
      },
    },
    {
      what: 'the rating unhidden by an administrator',
      write: async () => assert.is((await writer.post(`${ratings}/${rater.username}/unhide`, undefined, { cookie: admin.cookie })).status, 200),
      check: async () => {
        assert.is((await mine(rater)).hidden, false);
        assert.ok((await shown(player)).includes(rater.username));
      },
    },
    {
      what: 'the plugin made pending in plain SQL (the player may no longer see it)',
      write: async () => void (await sql`update plugins set status = 'pending' where id = ${PLUGIN}`),
      check: async () => {
        assert.is((await reader.get(ratings, { cookie: player.cookie })).status, 404);
        assert.is((await reader.get(ratings, { cookie: author.cookie })).status, 200);
        assert.is((await reader.get(ratings, { cookie: admin.cookie })).status, 200);
      },
    },
  ];
  for (const step of steps) {
    await step.write();
    await assertExact(step.what);
    await step.check?.();
  }
});

test('kept ratings pages never leak to another caller: each asks in turn, twice', async () => {
  await sql`update plugins set status = 'approved' where id = ${PLUGIN}`;
  const pages = new Map<TestUser, unknown>();
  for (const { user } of viewers()) pages.set(user, (await reader.get(ratings, { cookie: user.cookie })).body);
  for (const { what, user } of viewers()) {
    const page = (await reader.get(ratings, { cookie: user.cookie })).body;
    assert.equal(page, pages.get(user), what);
    assert.is(page.myRating === null, user !== rater, `${what}: myRating is their own`);
  }
  // A visitor still gets no myRating key at all.
  assert.not.ok('myRating' in (await reader.get(ratings)).body);
});

test.run();
