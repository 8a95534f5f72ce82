// Installs over time: install clicks counted per plugin per UTC day as they happen,
// and GET /apps/api/plugins/:id/stats?days=30|90|365 (shape, zero-filled days,
// today included, the window, visibility, bad input). Past days are written
// directly: the test sets the clock by the rows it puts in the past.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../src/db/pool.js';
import { insertPlugin, type TestUser } from '../../helpers/store-fixtures.js';
import type { TestServer } from '../../helpers/servers.js';
import { startStoreSite } from '../../helpers/store-site.js';
import type { StoreClient } from '../store/store-client.js';

let site: TestServer, client: StoreClient, sql: Sql;
let author: TestUser, other: TestUser, admin: TestUser, closeStore: () => Promise<void>;

test.before(async () => {
  ({ site, client, sql, author, other, admin, close: closeStore } = await startStoreSite('stats', { settings: { TRUST_PROXY: 'true' } }));
});
test.after(() => closeStore());

const stats = (id: string, query = '', user?: TestUser) => client.get(`/apps/api/plugins/${id}/stats${query}`, user ? { cookie: user.cookie } : {});
const click = (id: string, address: string) =>
  fetch(`${site.url}/apps/api/plugins/${id}/install-click`, { method: 'POST', headers: { 'x-forwarded-for': address } });

/** The UTC day `daysAgo` days before PostgreSQL's today, as YYYY-MM-DD. */
async function utcDay(daysAgo: number): Promise<string> {
  const [row] = await sql`select to_char((now() at time zone 'utc')::date - ${daysAgo}::int, 'YYYY-MM-DD') as day`;
  return row!.day as string;
}

async function pastInstalls(id: string, daysAgo: number, installs: number): Promise<void> {
  await sql`insert into plugin_install_days (plugin_id, day, installs)
            values (${id}, (now() at time zone 'utc')::date - ${daysAgo}::int, ${installs})`;
}

test('stats after clicks on two days: one entry per day, oldest first, zeros filled, today included', async () => {
  await insertPlugin(sql, 'stats-two-days', author);
  await pastInstalls('stats-two-days', 1, 7);
  await pastInstalls('stats-two-days', 40, 100); // outside 30 days, inside 90
  for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.1']) assert.is((await click('stats-two-days', address)).status, 200);

  const answer = await stats('stats-two-days', '?days=30');
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  assert.is(answer.headers.get('cache-control'), 'no-store');
  const days = answer.body.days as Array<{ date: string; installs: number }>;
  assert.is(days.length, 30);
  assert.is(days[29]!.date, await utcDay(0));
  assert.is(days[0]!.date, await utcDay(29));
  for (let i = 1; i < days.length; i++) {
    assert.is(Date.parse(days[i]!.date) - Date.parse(days[i - 1]!.date), 86_400_000, `day ${i} follows day ${i - 1}`);
  }
  // Two addresses counted today; the repeat of the first within the hour did not count.
  assert.equal(days[29], { date: await utcDay(0), installs: 2 });
  assert.equal(days[28], { date: await utcDay(1), installs: 7 });
  assert.is(days.slice(0, 28).every((day) => day.installs === 0), true);
  assert.equal(Object.keys(answer.body).sort(), ['days', 'success', 'total']);
  assert.is(answer.body.total, 9);

  const ninety = await stats('stats-two-days', '?days=90');
  assert.is(ninety.body.days.length, 90);
  assert.is(ninety.body.total, 109);
  assert.equal(ninety.body.days[89 - 40], { date: await utcDay(40), installs: 100 });
});

test('a counted click adds to its day in the same statement as install_count', async () => {
  await insertPlugin(sql, 'stats-agree', author);
  for (const address of ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.2']) await (await click('stats-agree', address)).text();
  const [plugin] = await sql`select install_count from plugins where id = 'stats-agree'`;
  const [day] = await sql`select coalesce(sum(installs), 0)::int as installs from plugin_install_days where plugin_id = 'stats-agree'`;
  assert.is(Number(plugin!.install_count), 3);
  assert.is(day!.installs, 3);
  // A click on a plugin that is not approved counts nowhere.
  await insertPlugin(sql, 'stats-pending-click', author, 'pending');
  assert.is((await click('stats-pending-click', '198.51.100.9')).status, 404);
  const [none] = await sql`select count(*)::int as n from plugin_install_days where plugin_id = 'stats-pending-click'`;
  assert.is(none!.n, 0);
});

test('days: 30 by default; 90 and 365 give that many entries', async () => {
  await insertPlugin(sql, 'stats-windows', author);
  for (const row of [
    { query: '', length: 30 },
    { query: '?days=90', length: 90 },
    { query: '?days=365', length: 365 },
  ]) {
    const answer = await stats('STATS-WINDOWS', row.query);
    assert.is(answer.status, 200);
    assert.is(answer.body.days.length, row.length, row.query);
    assert.is(answer.body.total, 0);
  }
});

const badDays = [
  { what: 'another number', query: '?days=7' },
  { what: 'zero', query: '?days=0' },
  { what: 'negative', query: '?days=-30' },
  { what: 'a fraction', query: '?days=30.0' },
  { what: 'not a number', query: '?days=month' },
  { what: 'a leading zero', query: '?days=030' },
  { what: 'given twice', query: '?days=30&days=90' },
];
for (const row of badDays) {
  test(`days ${row.what} -> 400 BAD_REQUEST naming the field`, async () => {
    await insertPlugin(sql, `stats-bad-${badDays.indexOf(row)}`, author);
    const answer = await stats(`stats-bad-${badDays.indexOf(row)}`, row.query);
    assert.is(answer.status, 400);
    assert.is(answer.body.code, 'BAD_REQUEST');
    assert.is(answer.body.field, 'days');
  });
}

const visibility = [
  { what: 'visitor', user: () => undefined, status: 404 },
  { what: 'another user', user: () => other, status: 404 },
  { what: 'the submitter', user: () => author, status: 200 },
  { what: 'an administrator', user: () => admin, status: 200 },
];
for (const row of visibility) {
  test(`a pending plugin's stats, as ${row.what} -> ${row.status}`, async () => {
    const id = `stats-hidden-${visibility.indexOf(row)}`;
    await insertPlugin(sql, id, author, 'pending');
    const answer = await stats(id, '', row.user());
    assert.is(answer.status, row.status);
    if (row.status === 404) assert.is(answer.body.code, 'NOT_FOUND');
  });
}

test('an unknown plugin or a malformed id -> 404', async () => {
  for (const id of ['stats-no-such-plugin', 'x', '%2e%2e']) {
    const answer = await stats(id);
    assert.is(answer.status, 404, id);
    assert.is(answer.body.code, 'NOT_FOUND');
  }
});

test.run();
