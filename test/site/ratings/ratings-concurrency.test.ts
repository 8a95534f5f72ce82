// Ratings under concurrency stay exact (avg, count, distribution, and the plugin's
// ratingAvg / ratingCount), each PUT answers the statistics right after its own
// change, and a ratings page costs a fixed number of queries whatever its size.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../src/db/pool.js';
import { createSite } from '../../../src/services/site/app.js';
import { listen } from '../../../src/http/server.js';
import { insertPlugin, insertReply, testUser, type TestUser } from '../../helpers/store-fixtures.js';
import { closeTestSql, startTestSite, testConfig, testLogger, testSql, type TestServer } from '../../helpers/servers.js';
import { storeClient, type StoreClient } from '../store/store-client.js';

let site: TestServer;
let client: StoreClient;
let sql: Sql;
let author: TestUser;
const raters: TestUser[] = [];
const RATERS = 50;

test.before(async () => {
  sql = testSql();
  site = await startTestSite();
  client = storeClient(site.url);
  author = await testUser(sql, 'busy-author');
  for (let i = 0; i < RATERS; i++) raters.push(await testUser(sql, `busy-rater-${i}`));
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

const put = (id: string, user: TestUser, stars: number) =>
  client.request('PUT', `/apps/api/plugins/${id}/ratings`, { cookie: user.cookie, body: { stars, comment: `${stars} stars` } });

function distributionOf(stars: number[]): Record<string, number> {
  const counts: Record<string, number> = { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0 };
  for (const s of stars) counts[String(s)]!++;
  return counts;
}

async function assertExact(id: string, stars: number[]): Promise<void> {
  const page = (await client.get(`/apps/api/plugins/${id}/ratings?limit=50`)).body;
  const sum = stars.reduce((a, b) => a + b, 0);
  assert.is(page.count, stars.length);
  assert.is(page.avg, stars.length ? sum / stars.length : 0);
  assert.equal(page.distribution, distributionOf(stars));
  assert.is(page.ratings.length, Math.min(stars.length, 50));
  const plugin = (await client.get(`/apps/api/plugins/${id}`)).body.plugin;
  assert.is(plugin.ratingCount, stars.length);
  assert.is(plugin.ratingAvg, page.avg);
  // And the counts the trigger keeps equal a count of the rows themselves.
  const [row] = await sql<Array<{ n: number; total: number | null }>>`
    select count(*)::integer as n, sum(stars)::integer as total from plugin_ratings where plugin_id = ${id}`;
  assert.is(row!.n, stars.length);
  assert.is(row!.total ?? 0, sum);
}

test('50 users rating in parallel leave avg, count and distribution exact; each answer counts its own rating in', async () => {
  await insertPlugin(sql, 'busy', author);
  const stars = raters.map((_, i) => (i % 5) + 1);
  const answers = await Promise.all(raters.map((user, i) => put('busy', user, stars[i]!)));
  for (const answer of answers) assert.is(answer.status, 200, JSON.stringify(answer.body));
  // Every PUT added one rating under the plugin row's lock, so the answers saw
  // counts 1..50, each exactly once.
  assert.equal(answers.map((a) => a.body.count).sort((a, b) => a - b), Array.from({ length: RATERS }, (_, i) => i + 1));
  for (const answer of answers) {
    const d = answer.body.distribution;
    assert.is(d['1'] + d['2'] + d['3'] + d['4'] + d['5'], answer.body.count);
  }
  await assertExact('busy', stars);
});

test('50 users changing, and then some deleting, their ratings in parallel stay exact', async () => {
  await insertPlugin(sql, 'busy-changes', author);
  await Promise.all(raters.map((user) => put('busy-changes', user, 1)));
  const changed = raters.map((_, i) => 5 - (i % 3));
  await Promise.all(raters.map((user, i) => put('busy-changes', user, changed[i]!)));
  await assertExact('busy-changes', changed);
  // Half delete while the other half change again, all at once.
  const final: number[] = [];
  await Promise.all(
    raters.map((user, i) => {
      if (i % 2 === 0) return client.request('DELETE', '/apps/api/plugins/busy-changes/ratings', { cookie: user.cookie });
      final.push(2);
      return put('busy-changes', user, 2);
    }),
  );
  await assertExact('busy-changes', final);
});

test('one user rating the same plugin 20 times in parallel leaves one rating', async () => {
  await insertPlugin(sql, 'busy-one-user', author);
  // A user of its own: 20 is also the most rating writes a user may make in a minute.
  const solo = await testUser(sql, 'busy-solo');
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => put('busy-one-user', solo, (i % 5) + 1)));
  for (const answer of answers) {
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    assert.is(answer.body.count, 1);
  }
  const page = (await client.get('/apps/api/plugins/busy-one-user/ratings')).body;
  assert.is(page.count, 1);
  assert.is(page.ratings.length, 1);
  assert.is(page.avg, page.ratings[0].stars);
});

test('replies racing the deletion of their rating end as 201 or 404, never 500, and leave no orphan', async () => {
  await insertPlugin(sql, 'busy-race', author);
  for (let round = 0; round < 5; round++) {
    await put('busy-race', raters[1]!, 4);
    const results = await Promise.all([
      ...raters.slice(2, 12).map((user) =>
        client.post('/apps/api/plugins/busy-race/ratings/busy-rater-1/replies', { body: 'racing' }, { cookie: user.cookie }),
      ),
      client.request('DELETE', '/apps/api/plugins/busy-race/ratings', { cookie: raters[1]!.cookie }),
    ]);
    for (const answer of results) assert.ok([200, 201, 404].includes(answer.status), JSON.stringify(answer.body));
    const [{ count }] = await sql<Array<{ count: number }>>`
      select count(*)::integer as count from plugin_rating_replies where plugin_id = 'busy-race'`;
    assert.is(count, 0);
  }
});

/** Counts every query the site sends through runNamed (sql.unsafe) and transactions. */
function countingSql(target: Sql): { sql: Sql; count(): number } {
  let count = 0;
  const proxy = new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if ((property === 'unsafe' || property === 'begin') && typeof value === 'function') {
        return (...args: unknown[]) => {
          count++;
          return value.apply(object, args);
        };
      }
      return value;
    },
  });
  return { sql: proxy, count: () => count };
}

test('a ratings page costs the same few queries for 1 or 50 ratings with replies (no query per rating)', async () => {
  const counting = countingSql(sql);
  const config = testConfig();
  // No webhook worker: its polls would be counted with the page's queries.
  const app = createSite({ config, sql: counting.sql, log: testLogger(), webhooks: { start: false }, packageChecks: { start: false } });
  const server = await listen(app.handler, '127.0.0.1', 0);
  try {
    await insertPlugin(sql, 'busy-small', author);
    await insertPlugin(sql, 'busy-large', author);
    await sql`insert into plugin_ratings (plugin_id, user_id, stars) values ('busy-small', ${raters[0]!.id}, 5)`;
    for (const user of raters) {
      await sql`insert into plugin_ratings (plugin_id, user_id, stars) values ('busy-large', ${user.id}, 4)`;
      await insertReply(sql, 'busy-large', user, author, 'thanks');
      await insertReply(sql, 'busy-large', user, raters[0]!, 'me too');
    }
    const cost = async (id: string) => {
      const before = counting.count();
      const response = await fetch(`${server.url}/apps/api/plugins/${id}/ratings?limit=50`, { headers: { cookie: raters[3]!.cookie } });
      const body = (await response.json()) as { ratings: Array<{ replies: unknown[] }>; myRating: unknown };
      return { queries: counting.count() - before, body };
    };
    // The session looked up (and kept) by a request of its own first.
    assert.is((await fetch(`${server.url}/apps/api/plugins/busy-small/ratings?limit=1`, { headers: { cookie: raters[3]!.cookie } })).status, 200);
    const small = await cost('busy-small');
    const large = await cost('busy-large');
    assert.is(large.body.ratings.length, 50);
    assert.ok(large.body.ratings.every((r) => r.replies.length === 2));
    assert.ok(large.body.myRating !== null);
    // The generations (shared by the kept session and the kept page), visibility, page.
    assert.is(small.queries, 3);
    assert.is(large.queries, 3);
    // Asked again with nothing changed: the generations alone (ratings/kept-pages.ts).
    const again = await cost('busy-large');
    assert.is(again.queries, 1);
    assert.equal(again.body, large.body);
  } finally {
    await server.close(1000);
    await app.close();
  }
});

test.run();
