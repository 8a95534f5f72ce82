// scripts/check-folded-schema.ts: the second pre-release chain and the pre-release
// fold (from git), carried over, and the released files, each with the migrations
// appended after the release on top, make the same schema, rows and
// schema_migrations on the test server; and the comparison does see a difference
// when there is one, also one the carry-over would hide.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readMigrations } from '../../src/db/migrate.js';
import { compareChains, normalizeDump } from '../../scripts/folded-schema/compare.js';
import { needingGitHistory } from '../helpers/git-history.js';

const serverUrl = (() => {
  const url = new URL(process.env.TEST_DB_URL!);
  url.pathname = '/postgres';
  return url.href;
})();

const withChain = needingGitHistory(test, 'the comparisons with the second pre-release chain, which only git history holds');

withChain('the released schema is identical to the second chain\'s and the pre-release fold\'s, carried over (catalogue, schema_migrations, and pg_dump where one fits the server)', async () => {
  const result = await compareChains({ serverUrl, pgDumps: ['/usr/lib/postgresql/15/bin/pg_dump'] });
  for (const side of [result.secondChain, result.preReleaseFold]) {
    assert.is(side.catalog.diff, '');
    assert.is(side.recorded.diff, '');
    if (side.pgDump) assert.equal([side.pgDump.schemaDiff, side.pgDump.dataDiff], ['', '']);
  }
  assert.equal(result.beforeCarryOver, { rewritten: 29, functions: { old: 4, folded: 1 }, unexpected: [] });
  assert.ok(result.identical);
  assert.is(result.secondChain.files, 21);
  assert.is(result.preReleaseFold.files, 13);
  assert.is(result.releasedFiles, 9);
  assert.ok(result.catalog.entries > 500, `${result.catalog.entries} lines describe the schema`);
});

// The carry-over of the second chain makes its triggers from the released sql/009,
// so its side cannot see a trigger of 009 that differs from the chain's; the
// pre-release fold's side keeps its own triggers and does, and the comparison
// before any carry-over ties the fold's triggers to the second chain's.
withChain('a released bump trigger that differs from the pre-release ones is seen, though the second chain\'s carry-over makes that side alike', async () => {
  const migrations = readMigrations().map((m) => m.name === 'generation_bumps'
    ? { ...m, text: m.text.replace("for each row when (new.status = 'approved')", "for each row when (new.status <> 'pending')") }
    : m);
  assert.ok(migrations.some((m, i) => m.text !== readMigrations()[i]!.text), 'the trigger was changed');
  const result = await compareChains({ serverUrl, pgDumps: [], migrations });
  assert.is(result.secondChain.catalog.diff, '');
  assert.equal(result.preReleaseFold.catalog.diff.split('\n').filter((line) => /^[-+]trigger/.test(line)).map((line) => line.slice(0, 1) + line.includes('plugin_versions_bump_visibility_insert')), ['-true', '+true']);
  assert.equal(result.beforeCarryOver, { rewritten: 29, functions: { old: 4, folded: 1 }, unexpected: [] });
  assert.not.ok(result.identical);
});

test('a dump is compared object by object, in name order, without its session settings or random keys', () => {
  const dump = (order: string[], key: string) => [
    '--', '-- PostgreSQL database dump', '--', `\\restrict ${key}`, 'SET statement_timeout = 0;', '',
    ...order.flatMap((name) => ['--', `-- Name: ${name}; Type: TABLE; Schema: public; Owner: someone`, '--', '', `CREATE TABLE public.${name} (id integer);`, '']),
    `\\unrestrict ${key}`,
  ].join('\n');
  assert.equal(normalizeDump(dump(['a', 'b'], 'k1')), normalizeDump(dump(['b', 'a'], 'k2')));
  assert.equal(normalizeDump(dump(['a', 'b'], 'k1')), [
    '-- Name: a; Type: TABLE; Schema: public\n\nCREATE TABLE public.a (id integer);',
    '-- Name: b; Type: TABLE; Schema: public\n\nCREATE TABLE public.b (id integer);',
  ]);
});

test.run();
