// The store lists (sql/queries/store/list-updated.sql, list-rating.sql,
// list-installs.sql, and list-oldest.sql, list-updated.sql reversed): one query in
// three orders, kept as files a search finds.
// Each orders by its own column and names its own index, and apart from those they
// are the same text, so a fix to one that misses the others fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../src/lib/project-root.js';
import { declaredParams, loadQueries } from '../../src/db/queries.js';

const sorts = [
  { what: 'updated', column: 'updated_at' },
  { what: 'rating', column: 'rating_score' },
  { what: 'installs', column: 'install_count' },
];
const read = (sort: string) => readFileSync(join(projectRoot(), 'sql', 'queries', 'store', `list-${sort}.sql`), 'utf8');

for (const { what, column } of sorts) {
  test(`store/list-${what} orders by ${column} on plugins_status_${what}, with the lists' eight named parameters`, () => {
    const text = loadQueries().get(`store/list-${what}`);
    assert.ok(text, `store/list-${what}`);
    assert.ok(text.startsWith(`-- A page of plugins by ${column},`), 'the query\'s own comment comes first (EXPLAIN titles use it)');
    assert.ok(text.includes(`order by p.${column} desc, p.id`), `${what} orders by ${column}`);
    assert.ok(text.includes(`plugins_status_${what}`), `${what} names its index`);
    assert.equal(declaredParams(`store/list-${what}`, text), ['viewer_id', 'sees_all', 'status', 'submitter_id', 'tag', 'featured_only', 'limit', 'offset']);
  });
}

test('the three lists are the same text but for their sort column and index', () => {
  const generic = sorts.map(({ what, column }) =>
    read(what).replaceAll(column, '<column>').replaceAll(`plugins_status_${what}`, 'plugins_status_<sort>'));
  assert.equal(generic[1], generic[0], 'list-rating.sql');
  assert.equal(generic[2], generic[0], 'list-installs.sql');
});

test('list-oldest is list-updated reversed, ties included: the same query walking the same indexes backwards', () => {
  const oldest = loadQueries().get('store/list-oldest');
  assert.ok(oldest?.startsWith('-- A page of plugins by updated_at,'), 'the query\'s own comment comes first');
  assert.equal(declaredParams('store/list-oldest', oldest!), ['viewer_id', 'sees_all', 'status', 'submitter_id', 'tag', 'featured_only', 'limit', 'offset']);
  const statements = (text: string) => text.split('\n').filter((line) => !line.startsWith('--')).join('\n');
  const reversed = statements(read('oldest'));
  assert.is(reversed.match(/updated_at asc, \w\.id desc/g)?.length, 4, 'every order by reversed');
  assert.is(reversed.replace(/updated_at asc, (\w)\.id desc/g, 'updated_at desc, $1.id'), statements(read('updated')));
});

test.run();
