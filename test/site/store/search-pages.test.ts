// Search pages and totals: the search ranks fully only the rows that can reach the
// page (sql/queries/store/search.sql), so every page must still be the same slice
// of the whole ordered list and every total the count of all matches, whichever
// tier fills the page. Also: plugin_search (sql/004) follows every change of plugins.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { storeClient, type StoreClient } from './store-client.js';

let site: TestServer;
let client: StoreClient;

// 30 plugins named exactly "Lantern" (the first tier fills small pages alone), 25
// tagged "lantern" under other names, 10 with a longer name, 10 that mention it in
// their description only, and 20 unrelated ones.
const plugins = [
  ...Array.from({ length: 30 }, (_, i) => ({ id: `lantern-${i}`, name: 'Lantern', tags: ['light'], description: 'A light', installs: (i * 37) % 50 })),
  ...Array.from({ length: 25 }, (_, i) => ({ id: `glow-kit-${i}`, name: `Glow Kit ${i}`, tags: ['lantern', 'light'], description: 'Glows', installs: (i * 13) % 40 })),
  ...Array.from({ length: 10 }, (_, i) => ({ id: `lanterns-plus-${i}`, name: 'Lanterns Plus', tags: ['light'], description: 'More light', installs: i })),
  ...Array.from({ length: 10 }, (_, i) => ({ id: `torch-${i}`, name: `Torch ${i}`, tags: ['light'], description: 'Brighter than a lantern', installs: 100 + i })),
  ...Array.from({ length: 20 }, (_, i) => ({ id: `other-${i}`, name: `Other ${i}`, tags: ['misc'], description: 'Nothing to see', installs: i })),
];

test.before(async () => {
  const sql = testSql();
  const [{ id }] = await sql`insert into users (username) values ('pages') returning id::text`;
  await sql`
    insert into plugins (id, submitter_id, name, version, author, description, download, tags, status, install_count, stars_5)
    select p.id, ${id}, p.name, '1.0', 'Lamp Works', p.description, 'https://example.com/' || p.id || '.zip',
           array(select jsonb_array_elements_text(p.tags)), 'approved', p.installs, p.installs % 7
      from jsonb_to_recordset(${sql.json(plugins as never)}) as p(id text, name text, description text, tags jsonb, installs integer)`;
  site = await startTestSite();
  client = storeClient(site.url);
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

async function search(query: string): Promise<{ ids: string[]; total: number }> {
  const answer = await client.get(`/apps/api/plugins?${query}`);
  assert.is(answer.status, 200, query);
  return { ids: answer.body.plugins.map((plugin: { id: string }) => plugin.id), total: answer.body.total };
}

const queries = [
  { what: 'an exact name shared by 30 plugins', q: 'lantern', matches: 75 },
  { what: 'a prefix', q: 'lanter', matches: 75 },
  { what: 'a typo', q: 'lantren', matches: 40 },
  { what: 'two words of names', q: 'glow kit', matches: 25 },
  { what: 'a tag word and a name word', q: 'lantern glow', matches: 25 },
];
const sorts = ['', '&sort=installs', '&sort=rating', '&sort=updated'];
const pages = [[1, 0], [5, 0], [7, 3], [20, 25], [10, 60], [30, 0], [500, 70]] as const;

for (const { what, q, matches } of queries) {
  for (const sort of sorts) {
    test(`q=${q}${sort} (${what}): every page is a slice of the whole list, every total the count of all matches`, async () => {
      const all = await search(`q=${encodeURIComponent(q)}${sort}&limit=500`);
      assert.is(all.total, matches, 'total');
      assert.is(all.ids.length, matches, 'all matches listed');
      assert.is(new Set(all.ids).size, matches, 'no plugin twice');
      for (const [limit, offset] of pages) {
        const page = await search(`q=${encodeURIComponent(q)}${sort}&limit=${limit}&offset=${offset}`);
        assert.is(page.total, matches, `total with limit=${limit} offset=${offset}`);
        assert.equal(page.ids, all.ids.slice(offset, offset + limit), `limit=${limit} offset=${offset}`);
      }
    });
  }
}

test('the exact name comes first, then the tag, then the longer name, then the description', async () => {
  const { ids } = await search('q=lantern&limit=500');
  const kinds = ids.map((id) => id.replace(/-\d+$/, ''));
  const firstOf = (kind: string) => kinds.indexOf(kind);
  const lastOf = (kind: string) => kinds.lastIndexOf(kind);
  assert.ok(lastOf('lantern') < firstOf('lanterns-plus'), kinds.join(' '));
  assert.ok(lastOf('lanterns-plus') < firstOf('glow-kit') || lastOf('glow-kit') < firstOf('lanterns-plus'), 'tiers do not interleave');
  assert.ok(Math.max(lastOf('glow-kit'), lastOf('lanterns-plus')) < firstOf('torch'), kinds.join(' '));
});

test('plugin_search follows plugins: a rename, a new tag, a new status and a deletion show at once', async () => {
  const sql = testSql();
  await sql`update plugins set name = 'Candle Holder' where id = 'other-1'`;
  assert.equal((await search('q=candle')).ids, ['other-1']);
  assert.equal((await search('q=candel')).ids, ['other-1'], 'the new name is known to the typo lookup');
  await sql`update plugins set tags = '{misc,wax}' where id = 'other-2'`;
  assert.equal((await search('q=wax')).ids, ['other-2']);
  await sql`update plugins set status = 'rejected' where id = 'other-2'`;
  assert.equal((await search('q=wax')).ids, []);
  await sql`delete from plugins where id = 'other-1'`;
  assert.equal((await search('q=candle')).ids, []);
  const [{ rows, copies }] = await sql`
    select (select count(*) from plugins)::integer as rows, (select count(*) from plugin_search)::integer as copies`;
  assert.is(copies, rows);
});

test('plugin_search is what store_search_rows builds, after one statement changing counts of some rows and text of others (sql/004, store_sync_plugin_search)', async () => {
  const sql = testSql();
  await sql`
    update plugins
       set install_count = install_count + 3,
           stars_4 = stars_4 + 1,
           featured = id like 'torch-%',
           description = case when id like 'other-%' then description || ' and wax' else description end,
           status = case when id = 'other-5' then 'pending' else status end`;
  const [{ differ }] = await sql`
    select count(*)::integer as differ
      from plugin_search s
      full join store_search_rows(array(select p from plugins p)) as r on r.id = s.id
     where s is distinct from r`;
  assert.is(differ, 0);
  const [{ waxed }] = await sql`
    select count(*)::integer as waxed from plugins where status = 'approved' and (description like '% wax' or tags_lower @> '{wax}')`;
  assert.ok(waxed > 10);
  assert.is((await search('q=wax')).total, waxed);
});

test('an install click moves a match in sort=installs', async () => {
  const sql = testSql();
  await sql`update plugins set install_count = 1000 where id = 'glow-kit-3'`;
  assert.is((await search('q=glow&sort=installs&limit=1')).ids[0], 'glow-kit-3');
});

test.run();
