// Defect: a dump with screenshots did not restore. pg_restore (and the SQL that
// pg_dump writes) loads rows with an empty search_path, and the screenshots'
// domain check called store_link_ok() by an unqualified name: "function
// store_link_ok(jsonb) does not exist". Each domain whose check runs a function
// of ours is tried here as a restore tries it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeTestSql, testSql } from '../helpers/servers.js';

const cases = [
  { what: 'screenshots as {url, webpUrl}', domain: 'plugin_screenshots', value: '[{"url":"https://img.example/a.png","webpUrl":"https://img.example/a.webp"}]' },
  { what: 'screenshots as links', domain: 'plugin_screenshots', value: '["/img/1/0cc175b9c0f1b6a831c399e269772661"]' },
  { what: 'tags', domain: 'plugin_tags', value: '{map,hud}' },
  { what: 'permissions', domain: 'plugin_permissions', value: '{network}' },
];

for (const c of cases) {
  test(`store_link_ok(jsonb) does not exist under pg_restore's empty search_path: ${c.what} pass their check`, async () => {
    const [row] = await testSql().begin(async (sql) => {
      await sql`set local search_path = ''`;
      return sql.unsafe(`select $1::text::public.${c.domain} is not null as ok`, [c.value]);
    });
    assert.is(row!.ok, true);
  });
}

test('a bad value is still refused under the empty search_path', async () => {
  const refused = await testSql()
    .begin(async (sql) => {
      await sql`set local search_path = ''`;
      return sql.unsafe(`select $1::text::public.plugin_screenshots`, ['[{"url":"http://plain.example/a.png"}]']);
    })
    .then(() => null, (error: Error) => error.message);
  assert.match(refused ?? '', /violates check constraint/);
});

test.after(closeTestSql);
test.run();
