// Every named query checked against the migrated schema, as sqlx checks its
// queries: PostgreSQL describes each (postgres.js describe(): parsed and planned,
// never run), its parameters must be the ones its "-- params:" lines declare, and
// its result columns what src/db/query-rows.ts says, the row types runNamed gives
// its callers. A query or migration that changes a query's columns fails here
// until `npm run query-rows` writes them, and then tsc finds the code that reads
// what is no longer there.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { declaredParams, loadQueries } from '../../src/db/queries.js';
import { projectRoot } from '../../src/lib/project-root.js';
import { describeQueries, renderQueryRows, type QueryShape } from '../../scripts/query-rows/shapes.js';
import { closeTestSql, testSql } from '../helpers/servers.js';

const queries = loadQueries();
const params = new Map<string, string[]>();
for (const [name, text] of queries) {
  const names = declaredParams(name, text);
  if (names !== undefined) params.set(name, names);
}
let shapes: QueryShape[];

test.before(async () => { shapes = await describeQueries(testSql(), queries); });
test.after(async () => { await closeTestSql(); });

test('every query file declares its parameters ("-- params:", or "-- params: none")', () => {
  const undeclared = [...queries.keys()].filter((name) => !params.has(name)).sort();
  assert.equal(undeclared, [], `sql/queries/${undeclared[0]}.sql and ${undeclared.length - 1} more declare no parameters`);
});

test('PostgreSQL finds as many parameters in each query as it declares', () => {
  assert.ok(shapes.length === queries.size && queries.size > 100, `${shapes.length} of ${queries.size} described`);
  for (const shape of shapes) {
    const names = params.get(shape.name);
    if (names === undefined) continue;
    assert.is(shape.paramCount, names.length, `${shape.name}: PostgreSQL finds ${shape.paramCount} parameters, "-- params:" names ${names.join(', ') || 'none'}`);
  }
});

test('src/db/query-rows.ts holds the rows PostgreSQL describes today (else: npm run query-rows)', () => {
  const written = readFileSync(join(projectRoot(), 'src', 'db', 'query-rows.ts'), 'utf8').split('\n');
  const described = renderQueryRows(shapes, params).split('\n');
  const line = described.findIndex((text, index) => text !== written[index]);
  if (line !== -1 || written.length !== described.length) {
    const at = line === -1 ? described.length : line;
    assert.unreachable(`src/db/query-rows.ts differs at line ${at + 1}: written "${written[at] ?? ''}", described "${described[at] ?? ''}"; run npm run query-rows`);
  }
});

test('a query that returns another column no longer matches what query-rows.ts holds of it', async () => {
  const name = 'auth/find-local-user';
  const changed = new Map([[name, queries.get(name)!.replace('select id,', 'select id, is_admin,')]]);
  assert.is.not(changed.get(name), queries.get(name), 'the query was changed');
  const [before] = shapes.filter((shape) => shape.name === name);
  const [after] = await describeQueries(testSql(), changed);
  assert.equal(after!.columns!.map((column) => column.name), ['id', 'is_admin', ...before!.columns!.slice(1).map((column) => column.name)]);
  assert.is.not(renderQueryRows([after!], params), renderQueryRows([before!], params));
});

// What describe() tells of a column decides `| null`: only a NOT NULL column of a
// table, in a query without an outer join, is taken as never null.
const columns: Array<{ what: string; text: string; type: string; nullable: boolean }> = [
  { what: 'a NOT NULL column of a table', text: 'select u.username from users u', type: 'string', nullable: false },
  { what: 'a nullable column of a table', text: 'select u.password_hash from users u', type: 'string', nullable: true },
  { what: 'a NOT NULL column through a subquery', text: 'select x.id from (select id from users) x', type: 'string', nullable: false },
  { what: 'a NOT NULL column on the far side of a left join', text: 'select s.token_hash from users u left join sessions s on s.user_id = u.id', type: 'Buffer', nullable: true },
  { what: 'a NOT NULL column of RETURNING', text: 'delete from users where id = $1 returning id, is_admin', type: 'string', nullable: false },
  { what: 'an expression', text: 'select count(*) as n from users', type: 'string', nullable: true },
  { what: 'a view\'s column', text: 'select r.name from plugin_records r', type: 'string', nullable: true },
  { what: 'a domain over text', text: 'select p.id from plugins p', type: 'string', nullable: false },
  { what: 'a domain over text[]', text: 'select p.tags from plugins p', type: 'string[]', nullable: false },
  { what: 'bigint, as postgres.js leaves it', text: 'select 1::int8 as n', type: 'string', nullable: true },
  { what: 'an integer', text: 'select 1::int4 as n', type: 'number', nullable: true },
  { what: 'a date', text: 'select now() as at', type: 'Date', nullable: true },
  { what: 'an expression the query vouches for', text: '-- not null: n\nselect count(*) as n from users', type: 'string', nullable: false },
  { what: 'jsonb', text: 'select \'{}\'::jsonb as j', type: 'unknown', nullable: true },
];

test('"-- not null:" naming a column the query does not return is refused', async () => {
  const refused = await describeQueries(testSql(), new Map([['t', '-- not null: m\nselect count(*) as n from users']])).catch((error: Error) => error);
  assert.instance(refused, Error);
  assert.match((refused as Error).message, /names m, which it does not return/);
});

for (const c of columns) {
  test(`a column's type and nullability: ${c.what}`, async () => {
    const [shape] = await describeQueries(testSql(), new Map([['t', c.text]]));
    const column = shape!.columns![0]!;
    assert.equal({ type: column.type, nullable: column.nullable }, { type: c.type, nullable: c.nullable });
  });
}

test.run();
