// Related plugins (store_related_plugins, sql/005): the level-by-level, index-bound
// function gives exactly what the plain definition gives (approved, sharing a tag or
// the submitter, most shared tags first, then the same submitter, then installs,
// then id; never the plugin itself; at most `wanted`), compared on a seeded
// catalogue of a few thousand plugins for many random plugins and tag sets
// (property-style), plus edge cases.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildCatalogue } from '../../../scripts/seed/catalogue.js';
import { createRandom } from '../../../scripts/seed/random.js';
import { TAGS } from '../../../scripts/seed/vocabulary.js';
import { writeCatalogue } from '../../../scripts/seed/write.js';
import { closeTestSql, testSql } from '../../helpers/servers.js';

const sql = testSql();
const NOW = Date.parse('2026-01-01T00:00:00Z');

interface Related {
  id: string;
  shared_tags: number;
  same_submitter: boolean;
  install_count: string;
}

/** The definition, as the store's query was before store_related_plugins: every candidate scored and sorted. */
function plain(self: string, tags: string[], submitter: string | null, wanted: number): Promise<Related[]> {
  return sql<Related[]>`
    select p.id::text as id,
           (select count(*) from unnest(p.tags_lower) as tag where tag = any (${tags}::text[]))::integer as shared_tags,
           coalesce(p.submitter_id = ${submitter}::bigint, false) as same_submitter,
           p.install_count::text as install_count
      from plugins p
     where p.status = 'approved'
       and p.id <> ${self}
       and (p.tags_lower && ${tags}::text[] or p.submitter_id = ${submitter}::bigint)
     order by 2 desc, 3 desc, p.install_count desc, p.id
     limit ${wanted}`;
}

function fast(self: string, tags: string[], submitter: string | null, wanted: number): Promise<Related[]> {
  return sql<Related[]>`
    select id, shared_tags, same_submitter, install_count::text as install_count
      from store_related_plugins(${self}, ${tags}::text[], ${submitter}::bigint, ${wanted})`;
}

async function assertSame(self: string, tags: string[], submitter: string | null, wanted: number, what: string): Promise<void> {
  const expected = (await plain(self, tags, submitter, wanted)).map((row) => ({ ...row }));
  const actual = (await fast(self, tags, submitter, wanted)).map((row) => ({ ...row }));
  assert.equal(actual, expected, `${what}: ${self} [${tags.join(',')}] submitter ${submitter} wanted ${wanted}`);
}

let authors: string[] = [];

test.before(async () => {
  // A few thousand plugins with Zipf-distributed tags, mixed statuses, prolific authors.
  await writeCatalogue(sql, buildCatalogue({ plugins: 3000, ratings: 0, seed: 11, now: NOW }));
  const random = createRandom(5);
  // Many ties: install counts from a handful of values, so ties are broken by id.
  await sql`update plugins set install_count = (abs(hashtext(id)) % 6) * 100 where abs(hashtext(id)) % 3 = 0`;
  // Plugins with 7-16 tags, where "shares s of k tags" has too many combinations for
  // an OR of GIN lookups and the function filters by the rarest tags instead.
  [{ id: authors[0] }] = await sql`select id::text from users where provider_subject like 'seed:%' order by id limit 1`;
  const rows = Array.from({ length: 150 }, (_, n) => {
    const tags = new Set<string>();
    const size = random.int(7, 16);
    while (tags.size < size) tags.add(random.zipf(TAGS, 0.7).toLowerCase());
    return { id: `many-tags-${n}`, tags: `{${[...tags].join(',')}}`, installs: random.int(0, 3) * 10 };
  });
  await sql`
    insert into plugins (id, submitter_id, name, version, download, tags, status, install_count)
    select r.id, ${authors[0]!}, 'Many tags', '1', 'https://example.com/m.zip', r.tags::text[], 'approved', r.installs
      from unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.tags)}::text[], ${rows.map((r) => r.installs)}::bigint[])
           as r (id, tags, installs)`;
  authors = (await sql<Array<{ id: string }>>`select id::text from users where provider_subject like 'seed:%' order by id`).map((r) => r.id);
  await sql`analyze plugins`;
});
test.after(() => closeTestSql());

test('equal to the plain definition for 400 plugins of the catalogue (their own tags and submitter), wanting 6', async () => {
  const sample = await sql<Array<{ id: string; tags: string[]; submitter: string }>>`
    select id::text, tags_lower::text[] as tags, submitter_id::text as submitter from plugins order by md5(id) limit 400`;
  for (const plugin of sample) await assertSame(plugin.id, plugin.tags, plugin.submitter, 6, 'catalogue plugin');
  const many = await sql<Array<{ id: string; tags: string[]; submitter: string }>>`
    select id::text, tags_lower::text[] as tags, submitter_id::text as submitter from plugins where id like 'many-tags-%'`;
  for (const plugin of many) await assertSame(plugin.id, plugin.tags, plugin.submitter, 6, 'plugin with many tags');
});

test('equal for random tag sets (0-20 tags, unknown tags, duplicates), submitters and sizes 1-40', async () => {
  const random = createRandom(99);
  const ids = (await sql<Array<{ id: string }>>`select id::text from plugins order by id`).map((r) => r.id);
  for (let n = 0; n < 300; n++) {
    const tags: string[] = [];
    for (let k = random.int(0, 20); k > 0; k--) tags.push(random.chance(0.1) ? `unknown-${random.int(1, 3)}` : random.zipf(TAGS, 0.8).toLowerCase());
    if (random.chance(0.2) && tags.length) tags.push(tags[0]!);
    const submitter = random.chance(0.1) ? null : random.chance(0.3) ? authors[0]! : random.pick(authors);
    const self = random.chance(0.1) ? 'not-a-plugin' : random.pick(ids);
    await assertSame(self, tags, submitter, random.pick([1, 2, 6, 6, 6, 13, 40]), `random set ${n}`);
  }
});

test('edge cases: no tags (the submitter only), only the submitter matches, a pending plugin, nothing related, wanting none', async () => {
  const [author] = await sql<Array<{ id: string }>>`insert into users (username) values ('related-edge') returning id::text`;
  const insert = (id: string, tags: string[], installs: number, status = 'approved') =>
    sql`insert into plugins (id, submitter_id, name, version, download, tags, status, install_count)
        values (${id}, ${author!.id}, 'Edge', '1', 'https://example.com/e.zip', ${tags}::text[], ${status}, ${installs})`;
  await insert('edge-base', [], 5);
  await insert('edge-b', ['edge-only-a'], 7);
  await insert('edge-a', ['edge-only-b'], 7);
  await insert('edge-c', [], 9);
  await insert('edge-pending', ['edge-only-a'], 100, 'pending');
  // Tags are free text but for separators: quotes, braces and backslashes reach SQL intact.
  await insert('edge-odd', ['it\'s', 'a"b', 'x{y}', 'back\\slash'], 1);
  await insert('edge-odd-2', ['it\'s', 'a"b', 'x{y}', 'back\\slash'], 1, 'approved');
  await sql`update plugins set submitter_id = ${authors[1]!} where id = 'edge-odd-2'`;
  const related = async (self: string, tags: string[], wanted = 6) => (await fast(self, tags, author!.id, wanted)).map((row) => row.id);
  // No tags: the submitter's approved plugins by installs, ties by id; never itself or a pending one.
  assert.equal(await related('edge-base', []), ['edge-c', 'edge-a', 'edge-b', 'edge-odd']);
  // Only the submitter matches (tags nobody else has): shared tag first, then the rest.
  assert.equal(await related('edge-pending', ['edge-only-a']), ['edge-b', 'edge-c', 'edge-a', 'edge-base', 'edge-odd']);
  const [loner] = await sql<Array<{ id: string }>>`insert into users (username) values ('related-loner') returning id::text`;
  assert.equal((await fast('edge-odd', ['it\'s', 'a"b', 'x{y}', 'back\\slash'], loner!.id, 6)).map((row) => [row.id, row.shared_tags]), [['edge-odd-2', 4]]);
  assert.equal((await fast('edge-odd', ['x{y}', 'a"b'], loner!.id, 6)).map((row) => [row.id, row.shared_tags]), [['edge-odd-2', 2]]);
  assert.equal(await related('edge-base', [], 2), ['edge-c', 'edge-a']);
  assert.equal(await related('edge-base', [], 0), []);
  for (const [self, tags] of [['edge-base', []], ['edge-pending', ['edge-only-a']], ['edge-c', ['edge-only-b', 'edge-only-a']], ['edge-odd', ['x{y}', 'it\'s', 'back\\slash']]] as const) {
    await assertSame(self, [...tags], author!.id, 6, 'edge');
  }
  // A submitter with no other plugin and tags nobody has: nothing.
  assert.equal((await fast('edge-none', ['no-such-tag'], loner!.id, 6)).map((row) => row.id), []);
});

test.run();
