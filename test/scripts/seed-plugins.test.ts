// The seed (scripts/seed-plugins.ts): deterministic, within every field rule (the
// database refuses anything else), star counts equal to the ratings, and what it
// writes is served by the site like anything else. A fresh database has no plugins.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildCatalogue } from '../../scripts/seed/catalogue.js';
import { TAGS } from '../../scripts/seed/vocabulary.js';
import { REBUILD_INDEXES_FROM, writeCatalogue } from '../../scripts/seed/write.js';
import { closeTestSql, startTestSite, testSql } from '../helpers/servers.js';

const sql = testSql();
test.after(() => closeTestSql());

const NOW = Date.parse('2026-01-01T00:00:00Z');

test('a migrated database starts with no plugins (nothing seeds on its own)', async () => {
  const [{ count }] = await sql<Array<{ count: number }>>`select count(*)::integer as count from plugins`;
  assert.is(count, 0);
});

test('the same seed gives the same catalogue; another seed another one', () => {
  const a = buildCatalogue({ plugins: 200, ratings: 1000, seed: 7, now: NOW });
  const b = buildCatalogue({ plugins: 200, ratings: 1000, seed: 7, now: NOW });
  const c = buildCatalogue({ plugins: 200, ratings: 1000, seed: 8, now: NOW });
  assert.equal(JSON.stringify(a), JSON.stringify(b));
  assert.not.equal(JSON.stringify(a.plugins.map((p) => p.id)), JSON.stringify(c.plugins.map((p) => p.id)));
});

test('the catalogue looks like a store: a vocabulary of a few hundred tags, unique ids, mixed statuses, heavy-tailed installs', () => {
  assert.ok(TAGS.length >= 200, `${TAGS.length} tags`);
  const { plugins, ratings } = buildCatalogue({ plugins: 2000, ratings: 10_000, seed: 1, now: NOW });
  assert.is(new Set(plugins.map((p) => p.id.toLowerCase())).size, 2000);
  const statuses = new Set(plugins.map((p) => p.status));
  assert.equal([...statuses].sort(), ['approved', 'pending', 'rejected']);
  assert.ok(new Set(plugins.flatMap((p) => p.tags)).size > 100);
  const installs = plugins.map((p) => p.installCount).sort((x, y) => x - y);
  assert.ok(installs[installs.length - 1]! > 50 * installs[1000]!, 'the most installed plugin dwarfs the median');
  assert.ok(Math.abs(ratings.length - 10_000) < 500, `${ratings.length} ratings`);
  assert.ok(ratings.every((r) => plugins[r.plugin]!.status === 'approved'), 'only approved plugins are rated');
});

test('writing a catalogue respects every constraint and keeps the star counts equal to the ratings', async () => {
  const catalogue = buildCatalogue({ plugins: 300, ratings: 3000, seed: 3, now: NOW });
  const counts = await writeCatalogue(sql, catalogue);
  assert.is(counts.plugins, 300);
  const [row] = await sql<Array<{ plugins: number; ratings: number; replies: number; mismatched: number }>>`
    select (select count(*)::integer from plugins) as plugins,
           (select count(*)::integer from plugin_ratings) as ratings,
           (select count(*)::integer from plugin_rating_replies) as replies,
           (select count(*)::integer from plugins p
             where p.rating_count <> (select count(*) from plugin_ratings r where r.plugin_id = p.id)
                or p.rating_sum <> (select coalesce(sum(stars), 0) from plugin_ratings r where r.plugin_id = p.id)) as mismatched`;
  assert.equal({ ...row }, { plugins: 300, ratings: catalogue.ratings.length, replies: catalogue.replies.length, mismatched: 0 });
  // The trigger is back on: a rating through SQL still moves the counts.
  const [{ enabled }] = await sql<Array<{ enabled: string }>>`
    select tgenabled as enabled from pg_trigger where tgname = 'plugin_ratings_count_stars'`;
  assert.is(enabled, 'O');
});

test('a second seed run adds to the catalogue without clashing ids or users', async () => {
  const taken = new Set((await sql<Array<{ id: string }>>`select lower(id) as id from plugins`).map((r) => r.id));
  const catalogue = buildCatalogue({ plugins: 100, ratings: 500, seed: 3, now: NOW, takenIds: taken });
  assert.ok(catalogue.plugins.every((p) => !taken.has(p.id.toLowerCase())));
  await writeCatalogue(sql, catalogue);
  const [{ count }] = await sql<Array<{ count: number }>>`select count(*)::integer as count from plugins`;
  assert.is(count, 400);
});

test('seeded plugins are served: list, detail, ratings page agree', async () => {
  const site = await startTestSite();
  try {
    const list = (await (await fetch(`${site.url}/apps/api/plugins?public=1&sort=installs&limit=5`)).json()) as {
      plugins: Array<{ id: string; ratingAvg: number; ratingCount: number }>;
    };
    assert.is(list.plugins.length, 5);
    const top = list.plugins[0]!;
    const ratings = (await (await fetch(`${site.url}/apps/api/plugins/${top.id}/ratings`)).json()) as { avg: number; count: number };
    assert.is(ratings.count, top.ratingCount);
    assert.is(ratings.avg, top.ratingAvg);
  } finally {
    await site.close();
  }
});

test('a large catalogue (indexes dropped and rebuilt) commits, with its indexes back, the generation trigger on, the store generation bumped once, and the derived tables filled', async () => {
  const generation = async () => BigInt((await sql`select generation::text as g from store_generation`)[0]!.g);
  const indexes = async () =>
    (await sql`select indexname from pg_indexes where tablename in ('plugins', 'plugin_ratings', 'plugin_search') order by 1`).map((row) => row.indexname);
  const before = { generation: await generation(), indexes: await indexes() };
  const taken = new Set((await sql<Array<{ id: string }>>`select lower(id) as id from plugins`).map((r) => r.id));
  const catalogue = buildCatalogue({ plugins: REBUILD_INDEXES_FROM, ratings: REBUILD_INDEXES_FROM, seed: 11, now: NOW, takenIds: taken });
  const counts = await writeCatalogue(sql, catalogue);
  assert.is(counts.plugins, REBUILD_INDEXES_FROM);
  assert.equal(await indexes(), before.indexes);
  assert.is(await generation(), before.generation + 1n);
  const [{ enabled }] = await sql<Array<{ enabled: string }>>`select tgenabled as enabled from pg_trigger where tgname = 'plugins_bump_generation'`;
  assert.is(enabled, 'O');
  // plugin_search (filled by its trigger) and plugin_tag_counts (sql/020) agree with plugins.
  const [row] = await sql<Array<{ plugins: number; searchable: number; tag_mismatches: number }>>`
    select (select count(*)::integer from plugins) as plugins,
           (select count(*)::integer from plugin_search s join plugins p using (id)) as searchable,
           (select count(*)::integer from (
              select tag, status, plugins from plugin_tag_counts where plugins > 0
              except
              select t.tag, p.status, count(*) from plugins p cross join unnest(p.tags_lower) as t (tag) group by 1, 2) as d) as tag_mismatches`;
  assert.equal({ ...row }, { plugins: row!.plugins, searchable: row!.plugins, tag_mismatches: 0 });
  // A change after the seed bumps the generation again (the trigger is back on).
  await sql`update plugins set name = 'Renamed after seeding' where id = ${catalogue.plugins[0]!.id}`;
  assert.is(await generation(), before.generation + 2n);
});

test.run();
