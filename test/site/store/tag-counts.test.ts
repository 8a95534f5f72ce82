// plugin_tag_counts (sql/002): the per-(tag, status) counts behind the totals of
// tag-filtered lists stay equal to a recount of the plugins, whatever mix of bulk
// inserts, tag edits, status changes and deletes happens, also concurrently.
// Direct SQL, no HTTP.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeTestSql, testSql } from '../../helpers/servers.js';

const sql = testSql();
let alice = '';
const TAGS = ['Map', 'hud', 'chat', 'ui', 'tools', 'rare-one', 'Émoji', 'pvp'];
const STATUSES = ['pending', 'approved', 'rejected'];

test.before(async () => {
  [{ id: alice }] = await sql`insert into users (username) values ('tag-count-alice') returning id::text`;
});
test.after(() => closeTestSql());

/** The kept counts (zero rows left out) and a recount, both as "tag/status" -> count. */
async function keptAndActual(): Promise<[Record<string, number>, Record<string, number>]> {
  const kept = await sql<Array<{ key: string; plugins: number }>>`
    select tag || '/' || status as key, plugins::integer as plugins from plugin_tag_counts where plugins > 0 order by 1`;
  const actual = await sql<Array<{ key: string; plugins: number }>>`
    select t.tag || '/' || p.status as key, count(*)::integer as plugins
      from plugins p cross join unnest(p.tags_lower) as t (tag) group by 1 order by 1`;
  const asMap = (rows: Array<{ key: string; plugins: number }>) => Object.fromEntries(rows.map((row) => [row.key, row.plugins]));
  return [asMap(kept), asMap(actual)];
}

async function assertCounts(what: string): Promise<void> {
  const [kept, actual] = await keptAndActual();
  assert.equal(kept, actual, what);
}

/** A deterministic pseudo-random sequence (the same steps every run). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

function someTags(next: () => number): string[] {
  return TAGS.filter(() => next() < 0.35);
}

test('bulk inserts, tag edits (case too), status changes, both at once, other edits and deletes keep the counts exact', async () => {
  const next = random(42);
  let serial = 0;
  for (let round = 0; round < 12; round++) {
    // One statement, many rows (statement-level trigger).
    const rows = Array.from({ length: 1 + Math.floor(next() * 8) }, () => ({
      id: `tc-${serial++}`,
      tags: `{${someTags(next).map((tag) => `"${tag}"`).join(',')}}`,
      status: STATUSES[Math.floor(next() * 3)]!,
    }));
    await sql`
      insert into plugins (id, submitter_id, name, version, download, tags, status)
      select id, ${alice}, 'Counted', '1', 'https://example.com/c.zip', tags::text[], status
        from unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.tags)}::text[], ${rows.map((r) => r.status)}::text[])
             as r (id, tags, status)`;
    await assertCounts(`round ${round}: insert`);
    const ids = (await sql<Array<{ id: string }>>`select id from plugins where id like 'tc-%' order by id`).map((row) => row.id);
    const pick = () => ids[Math.floor(next() * ids.length)]!;
    const edits: Array<[string, () => Promise<unknown>]> = [
      ['tags', () => sql`update plugins set tags = ${`{${someTags(next).join(',')}}`}::text[] where id = ${pick()}`],
      ['tags upper-cased', () => sql`update plugins set tags = array(select upper(t) from unnest(tags) t) where id = ${pick()}`],
      ['status', () => sql`update plugins set status = ${STATUSES[Math.floor(next() * 3)]!} where id = ${pick()}`],
      ['both', () => sql`update plugins set status = ${STATUSES[Math.floor(next() * 3)]!}, tags = ${`{${someTags(next).join(',')}}`}::text[] where id = ${pick()}`],
      ['many rows at once', () => sql`update plugins set status = 'approved', tags = tags[1:1] where id like 'tc-%' and id like ${`%${Math.floor(next() * 10)}`}`],
      ['install count only', () => sql`update plugins set install_count = install_count + 1 where id = ${pick()}`],
      ['delete one', () => sql`delete from plugins where id = ${pick()}`],
    ];
    for (const [what, edit] of edits) {
      await edit();
      await assertCounts(`round ${round}: ${what}`);
    }
  }
  await sql`delete from plugins where id like 'tc-%'`;
  await assertCounts('all deleted');
  const [{ left }] = await sql`select coalesce(sum(plugins), 0)::integer as left from plugin_tag_counts`;
  assert.is(left, 0);
});

test('concurrent edits of plugins sharing tags (in opposite orders) neither deadlock nor lose a count', async () => {
  await sql`
    insert into plugins (id, submitter_id, name, version, download, tags, status)
    select 'tcc-' || g, ${alice}, 'Concurrent', '1', 'https://example.com/c.zip',
           case when g % 2 = 0 then array['a-tag', 'b-tag', 'c-tag'] else array['c-tag', 'b-tag', 'a-tag'] end, 'pending'
      from generate_series(1, 20) g`;
  // One statement each, as the API's edits and reviews are: the trigger locks the
  // (tag, status) rows in one order, whatever order the plugin lists its tags in.
  await Promise.all(Array.from({ length: 20 }, (_, i) =>
    sql`update plugins set status = 'approved', tags = ${i % 2 ? '{e-tag,c-tag,b-tag,a-tag}' : '{a-tag,b-tag,d-tag,e-tag}'}::text[]
         where id = ${`tcc-${i + 1}`}`));
  await assertCounts('after concurrent edits');
  const rows = await sql<Array<{ tag: string; plugins: number }>>`
    select tag, plugins::integer from plugin_tag_counts where status = 'approved' and tag in ('a-tag', 'd-tag', 'e-tag') order by tag`;
  assert.equal(rows.map((row) => ({ ...row })), [{ tag: 'a-tag', plugins: 20 }, { tag: 'd-tag', plugins: 10 }, { tag: 'e-tag', plugins: 20 }]);
  await sql`delete from plugins where id like 'tcc-%'`;
  await assertCounts('after delete');
});

test.run();
