// Named parameters of named queries (src/db/queries.ts): a query's "-- params:"
// lines name its $n, loading checks them against the SQL, and runNamed against
// what a call passes, so a call reads like the SQL it runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { declaredParams, loadQueries, runNamed } from '../../src/db/queries.js';
import type { Sql } from '../../src/db/pool.js';

const cases: Array<{ what: string; text: string; names?: string[]; error?: RegExp }> = [
  { what: 'no params lines: positional, as before', text: 'select $1', names: undefined },
  { what: 'one line', text: '-- params: $1 id, $2 name\nselect $1, $2', names: ['id', 'name'] },
  { what: 'several lines add up', text: '-- params: $1 id\n-- params: $2 name\nselect $2::text, $1', names: ['id', 'name'] },
  { what: 'a $n in the SQL without a name', text: '-- params: $1 id\nselect $1, $2', error: /\$2 has no name/ },
  { what: 'a name without its $n in the SQL', text: '-- params: $1 id, $2 name\nselect $1', error: /\$2 name is declared but not used/ },
  { what: 'a $n only in a comment does not count', text: '-- params: $1 id, $2 name\n-- $2 is the name\nselect $1', error: /\$2 name is declared but not used/ },
  { what: 'numbers out of order', text: '-- params: $2 name, $1 id\nselect $1, $2', error: /\$2 is declared where \$1 is due/ },
  { what: 'a name twice', text: '-- params: $1 id, $2 id\nselect $1, $2', error: /declared twice/ },
  { what: 'not "$n name"', text: '-- params: $1 Id\nselect $1', error: /is not "\$n name"/ },
  { what: 'none', text: '-- params: none\nselect 1', names: [] },
  { what: 'none, yet a $n', text: '-- params: none\nselect $1', error: /\$1 has no name/ },
  { what: 'none among names', text: '-- params: $1 id, none\nselect $1', error: /"none" is not "\$n name"/ },
  { what: 'a params line naming nothing', text: '-- params:\nselect 1', error: /names nothing/ },
];

for (const c of cases) {
  test(`declared params: ${c.what}`, () => {
    if (c.error) assert.throws(() => declaredParams('t', c.text), c.error);
    else assert.equal(declaredParams('t', c.text), c.names);
  });
}

test('every query in sql/queries loads with its declared parameters checked', () => {
  const queries = loadQueries();
  for (const name of ['store/search', 'store/list-updated', 'store/create-plugin', 'store/apply-plugin-edit', 'store/merge-pending-update']) {
    assert.ok(declaredParams(name, queries.get(name)!), `${name} names its parameters`);
  }
});

// Nothing reaches the database: the call is refused first.
const noDatabase = {} as Sql;

test('runNamed refuses a missing parameter and an unknown one', () => {
  const filters = { viewer_id: null, sees_all: false, status: null, submitter_id: null, tag: null, featured_only: false, limit: 1 };
  // tsc refuses both calls too (QueryParams); a caller that gets past it is refused at run time.
  // @ts-expect-error offset is missing
  assert.throws(() => runNamed(noDatabase, 'store/list-updated', filters), /parameter offset is not given/);
  // @ts-expect-error sort is no parameter of store/list-updated
  assert.throws(() => runNamed(noDatabase, 'store/list-updated', { ...filters, offset: 0, sort: 'x' }), /sort is no parameter of it/);
});

test.run();
