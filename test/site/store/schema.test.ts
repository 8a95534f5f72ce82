// The database holds the store's invariants on its own: whatever a code path does,
// PostgreSQL refuses what the API would refuse, and keeps the rating statistics
// exact. Direct SQL, no HTTP.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeTestSql, testSql } from '../../helpers/servers.js';

const sql = testSql();
let alice = '';
let bob = '';
const TEXT_OID = 25;

test.before(async () => {
  [{ id: alice }] = await sql`insert into users (username) values ('schema-alice') returning id::text`;
  [{ id: bob }] = await sql`insert into users (username) values ('schema-bob') returning id::text`;
  await insertPlugin({ id: 'base-plugin' });
});
test.after(() => closeTestSql());

function insertPlugin(fields: Record<string, unknown>) {
  const row: Record<string, unknown> = { submitter_id: alice, name: 'Name', version: '1.0', download: 'https://example.com/p.zip', ...fields };
  // Typed as text[] explicitly: the columns are domains, whose type postgres.js cannot infer.
  for (const key of ['tags', 'permissions']) if (Array.isArray(row[key])) row[key] = sql.array(row[key] as string[], TEXT_OID);
  return sql`insert into plugins ${sql(row as never)}`;
}

const refused: Array<{ what: string; fields: Record<string, unknown> }> = [
  { what: 'id shorter than 3', fields: { id: 'ab' } },
  { what: 'id longer than 128', fields: { id: 'a'.repeat(129) } },
  { what: 'id with a slash', fields: { id: 'a/b' } },
  { what: 'id taken in another case', fields: { id: 'BASE-PLUGIN' } },
  { what: 'empty name', fields: { id: 'p-name0', name: '' } },
  { what: 'name of 101 characters', fields: { id: 'p-name1', name: 'é'.repeat(101) } },
  { what: 'version of 65 characters', fields: { id: 'p-ver', version: 'v'.repeat(65) } },
  { what: 'author of 101 characters', fields: { id: 'p-auth', author: 'a'.repeat(101) } },
  { what: 'description of 501 characters', fields: { id: 'p-desc', description: 'd'.repeat(501) } },
  { what: 'long description of 20,001 characters', fields: { id: 'p-long', long_description: 'd'.repeat(20_001) } },
  { what: 'http download', fields: { id: 'p-dl1', download: 'http://example.com/p.zip' } },
  { what: 'download not a zip', fields: { id: 'p-dl2', download: 'https://example.com/p.tar' } },
  { what: 'download with a password', fields: { id: 'p-dl3', download: 'https://u:p@example.com/p.zip' } },
  { what: 'upper-case sha256', fields: { id: 'p-sha1', sha256: 'A'.repeat(64) } },
  { what: 'short sha256', fields: { id: 'p-sha2', sha256: 'a'.repeat(63) } },
  { what: 'http homepage', fields: { id: 'p-url', url: 'http://example.com' } },
  { what: 'icon on another host by //', fields: { id: 'p-icon', icon: '//evil.example/i.png' } },
  { what: '21 tags', fields: { id: 'p-tags1', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) } },
  { what: 'tag of 33 characters', fields: { id: 'p-tags2', tags: ['t'.repeat(33)] } },
  { what: 'tag with a space', fields: { id: 'p-tags3', tags: ['a b'] } },
  { what: 'tag with a Chinese comma', fields: { id: 'p-tags4', tags: ['a，b'] } },
  { what: 'tags equal but for case', fields: { id: 'p-tags5', tags: ['Map', 'map'] } },
  { what: 'empty tag', fields: { id: 'p-tags6', tags: [''] } },
  { what: '33 permissions', fields: { id: 'p-perm1', permissions: Array.from({ length: 33 }, (_, i) => `p${i}`) } },
  { what: 'permission of 65 characters', fields: { id: 'p-perm2', permissions: ['p'.repeat(65)] } },
  { what: '9 screenshots', fields: { id: 'p-shot1', screenshots: sql.json(Array.from({ length: 9 }, () => '/s.png')) } },
  { what: 'screenshot over http', fields: { id: 'p-shot2', screenshots: sql.json(['http://example.com/s.png']) } },
  { what: 'screenshot object with another key', fields: { id: 'p-shot3', screenshots: sql.json([{ url: '/s.png', alt: 'x' }]) } },
  { what: 'screenshot object without url', fields: { id: 'p-shot4', screenshots: sql.json([{ webpUrl: '/s.webp' }]) } },
  { what: 'screenshots not an array', fields: { id: 'p-shot5', screenshots: sql.json({ url: '/s.png' }) } },
  { what: 'unknown status', fields: { id: 'p-status', status: 'published' } },
  { what: 'negative install count', fields: { id: 'p-count', install_count: -1 } },
];

for (const { what, fields } of refused) {
  test(`plugins refuse ${what}`, async () => {
    try {
      await insertPlugin(fields);
    } catch (error) {
      assert.ok(['23514', '23505', '23502'].includes((error as { code?: string }).code ?? ''), String(error));
      return;
    }
    assert.unreachable('the row was stored');
  });
}

test('plugins accept every field at its limit', async () => {
  await insertPlugin({
    id: 'a'.repeat(128),
    name: '名'.repeat(100),
    version: 'v'.repeat(64),
    author: 'a'.repeat(100),
    description: 'd'.repeat(500),
    long_description: 'l'.repeat(20_000),
    download: 'https://cdn.example.com/x/Plugin.ZIP?x=1',
    sha256: 'a'.repeat(64),
    url: 'https://example.com',
    icon: '/media/icon.png',
    tags: Array.from({ length: 20 }, (_, i) => `tag-${i}`.padEnd(32, 'x')),
    permissions: Array.from({ length: 32 }, (_, i) => `perm-${i}`.padEnd(64, 'x')),
    screenshots: sql.json([...Array.from({ length: 7 }, () => 'https://example.com/s.png'), { url: '/s.png', webpUrl: '/s.webp' }]),
  });
});

test('a pending update needs known field names and values for required fields', async () => {
  for (const row of [
    { plugin_id: 'base-plugin', changed: ['name'] },
    { plugin_id: 'base-plugin', changed: ['status'], name: 'x' },
    { plugin_id: 'base-plugin', changed: [] },
  ]) {
    try {
      await sql`insert into plugin_pending_updates ${sql(row as never)}`;
      assert.unreachable(JSON.stringify(row));
    } catch (error) {
      assert.is((error as { code?: string }).code, '23514', String(error));
    }
  }
});

test('ratings: stars 1-5, comment up to 500 characters, one per user and plugin', async () => {
  const bad = [
    { stars: 0, comment: '' },
    { stars: 6, comment: '' },
    { stars: 3, comment: '字'.repeat(501) },
  ];
  for (const row of bad) {
    await sql`insert into plugin_ratings ${sql({ plugin_id: 'base-plugin', user_id: bob, ...row } as never)}`.then(
      () => assert.unreachable(JSON.stringify(row)),
      (error) => assert.is(error.code, '23514'),
    );
  }
  await sql`insert into plugin_ratings (plugin_id, user_id, stars, comment) values ('base-plugin', ${bob}, 4, ${'字'.repeat(500)})`;
  await sql`insert into plugin_ratings (plugin_id, user_id, stars) values ('base-plugin', ${bob}, 5)`.then(
    () => assert.unreachable('second rating stored'),
    (error) => assert.is(error.code, '23505'),
  );
});

test('the star distribution follows inserts, changes and deletes of ratings', async () => {
  await insertPlugin({ id: 'rated-plugin' });
  await sql`insert into plugin_ratings (plugin_id, user_id, stars) values ('rated-plugin', ${alice}, 5), ('rated-plugin', ${bob}, 2)`;
  await sql`update plugin_ratings set stars = 3 where plugin_id = 'rated-plugin' and user_id = ${bob}`;
  let [row] = await sql`select stars_1, stars_2, stars_3, stars_4, stars_5, rating_count, rating_sum from plugins where id = 'rated-plugin'`;
  assert.equal({ ...row }, { stars_1: 0, stars_2: 0, stars_3: 1, stars_4: 0, stars_5: 1, rating_count: 2, rating_sum: 8 });
  await sql`delete from plugin_ratings where plugin_id = 'rated-plugin' and user_id = ${alice}`;
  [row] = await sql`select rating_count, rating_sum from plugins where id = 'rated-plugin'`;
  assert.equal({ ...row }, { rating_count: 1, rating_sum: 3 });
});

test('deleting a rating deletes its replies', async () => {
  await sql`insert into plugin_ratings (plugin_id, user_id, stars) values ('rated-plugin', ${alice}, 4)`;
  await sql`insert into plugin_rating_replies (plugin_id, rating_user_id, user_id, body) values ('rated-plugin', ${alice}, ${bob}, 'thanks')`;
  await sql`delete from plugin_ratings where plugin_id = 'rated-plugin' and user_id = ${alice}`;
  const [{ count }] = await sql`select count(*)::int as count from plugin_rating_replies where plugin_id = 'rated-plugin'`;
  assert.is(count, 0);
});

test('plugin_status_counts follows inserts, status changes and deletes', async () => {
  const counts = async () => Object.fromEntries((await sql`select status, plugins::int from plugin_status_counts`).map((row) => [row.status, row.plugins]));
  const actual = async () => Object.fromEntries((await sql`select s.status, (select count(*)::int from plugins p where p.status = s.status) as plugins from plugin_status_counts s`).map((row) => [row.status, row.plugins]));
  await insertPlugin({ id: 'count-a' });
  await insertPlugin({ id: 'count-b' });
  await sql`update plugins set status = 'approved' where id = 'count-a'`;
  await sql`update plugins set status = 'rejected', name = 'Renamed' where id = 'count-b'`;
  await sql`update plugins set name = 'Again' where id = 'count-b'`;
  assert.equal(await counts(), await actual());
  await sql`delete from plugins where id in ('count-a', 'count-b')`;
  assert.equal(await counts(), await actual());
  // One statement, many rows of each status (the seed's bulk inserts).
  await sql`insert into plugins (id, submitter_id, name, version, download, status)
            select 'bulk-' || g, ${alice}, 'Bulk', '1', 'https://example.com/b.zip', (array['pending', 'approved', 'rejected'])[1 + g % 3]
              from generate_series(1, 30) g`;
  assert.equal(await counts(), await actual());
  await sql`delete from plugins where id like 'bulk-%' and status <> 'approved'`;
  assert.equal(await counts(), await actual());
});

test.run();
