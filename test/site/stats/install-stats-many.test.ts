// Several plugins' install series in one request (GET /apps/api/stats/installs,
// for My plugins' sparklines): the same series as each plugin's own, in the order
// asked, the visibility rule per plugin (what the caller may not see is left out),
// and bounded, checked ids.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../src/db/pool.js';
import { MAX_STATS_IDS } from '../../../src/services/site/stats/install-stats-many-route.js';
import { insertPlugin, type TestUser } from '../../helpers/store-fixtures.js';
import { startStoreSite } from '../../helpers/store-site.js';
import type { StoreClient } from '../store/store-client.js';

let client: StoreClient, sql: Sql;
let author: TestUser, other: TestUser, admin: TestUser, closeStore: () => Promise<void>;

test.before(async () => {
  ({ client, sql, author, other, admin, close: closeStore } = await startStoreSite('many'));
  await insertPlugin(sql, 'many-a', author);
  await insertPlugin(sql, 'many-b', author);
  await insertPlugin(sql, 'many-pending', author, 'pending');
  for (const [id, daysAgo, installs] of [['many-a', 0, 3], ['many-a', 2, 5], ['many-b', 29, 1], ['many-b', 30, 50], ['many-pending', 1, 4]] as const) {
    await sql`insert into plugin_install_days (plugin_id, day, installs) values (${id}, (now() at time zone 'utc')::date - ${daysAgo}::int, ${installs})`;
  }
});
test.after(() => closeStore());

const many = (query: string, user?: TestUser) => client.get(`/apps/api/stats/installs${query}`, user ? { cookie: user.cookie } : {});
const single = (id: string, query: string, user?: TestUser) => client.get(`/apps/api/plugins/${id}/stats${query}`, user ? { cookie: user.cookie } : {});

test('each series equals the plugin’s own, in the order asked; one entry per day', async () => {
  for (const days of ['', '&days=90', '&days=365']) {
    const answer = await many(`?ids=many-b,MANY-A${days}`);
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    assert.is(answer.headers.get('cache-control'), 'no-store');
    assert.equal(answer.body.plugins.map((plugin: { id: string }) => plugin.id), ['many-b', 'many-a']);
    for (const plugin of answer.body.plugins) {
      const own = await single(plugin.id, days.replace('&', '?'));
      assert.equal(plugin.days, own.body.days, `${plugin.id}${days}`);
      assert.is(plugin.total, own.body.total);
    }
  }
  const thirty = await many('?ids=many-a,many-b');
  assert.equal(thirty.body.plugins.map((plugin: { total: number }) => plugin.total), [8, 1]);
  assert.is(thirty.body.plugins[0].days.length, 30);
});

const visibility = [
  { what: 'a visitor', user: () => undefined, ids: ['many-a'] },
  { what: 'another user', user: () => other, ids: ['many-a'] },
  { what: 'the submitter', user: () => author, ids: ['many-a', 'many-pending'] },
  { what: 'an administrator', user: () => admin, ids: ['many-a', 'many-pending'] },
];
for (const row of visibility) {
  test(`a pending plugin and an unknown one, as ${row.what}: only what they may see`, async () => {
    const answer = await many('?ids=many-a,many-pending,many-no-such', row.user());
    assert.is(answer.status, 200);
    assert.equal(answer.body.plugins.map((plugin: { id: string }) => plugin.id), row.ids);
  });
}

test('a repeated id (in any case) comes once', async () => {
  const answer = await many('?ids=many-a,Many-A,many-a');
  assert.equal(answer.body.plugins.map((plugin: { id: string }) => plugin.id), ['many-a']);
});

const bad = [
  { what: 'no ids', query: '', field: 'ids' },
  { what: 'empty ids', query: '?ids=,,', field: 'ids' },
  { what: `more than ${MAX_STATS_IDS} ids`, query: '?ids=' + Array.from({ length: MAX_STATS_IDS + 1 }, (_, i) => `many-${i}-x`).join(','), field: 'ids' },
  { what: 'a malformed id', query: '?ids=many-a,x', field: 'ids' },
  { what: 'an over-long id', query: '?ids=many-a,' + 'a'.repeat(129), field: 'ids' },
  { what: 'odd characters (NUL, bad UTF-8, a slash)', query: '?ids=many-a,%00abc,%ff%fe%fd,a/b', field: 'ids' },
  { what: 'ids twice', query: '?ids=many-a&ids=many-b', field: 'ids' },
  { what: 'another window', query: '?ids=many-a&days=7', field: 'days' },
];
for (const row of bad) {
  test(`${row.what} -> 400 naming the field`, async () => {
    const answer = await many(row.query);
    assert.is(answer.status, 400);
    assert.is(answer.body.code, 'BAD_REQUEST');
    assert.is(answer.body.field, row.field);
  });
}

test(`${MAX_STATS_IDS} ids are one answer`, async () => {
  const answer = await many('?ids=' + ['many-a', ...Array.from({ length: MAX_STATS_IDS - 1 }, (_, i) => `many-none-${i}`)].join(','));
  assert.is(answer.status, 200);
  assert.is(answer.body.plugins.length, 1);
});

test.run();
