// scripts/check-folded-schema.ts: the second pre-release chain (from git), carried
// over, and the folded files, each with the appended migrations on top, make the
// same schema, rows and schema_migrations on the test server; and the comparison
// does see a difference when there is one, also one the carry-over would hide.
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

withChain('the folded schema is identical to the second pre-release chain\'s, carried over (catalogue, schema_migrations, and pg_dump where one fits the server)', async () => {
  const result = await compareChains({ serverUrl, pgDumps: ['/usr/lib/postgresql/15/bin/pg_dump'] });
  assert.is(result.catalog.diff, '');
  assert.is(result.recorded.diff, '');
  if (result.pgDump) assert.equal([result.pgDump.schemaDiff, result.pgDump.dataDiff], ['', '']);
  assert.equal(result.beforeCarryOver, { rewritten: 29, functions: { old: 4, folded: 1 }, unexpected: [] });
  assert.ok(result.identical);
  assert.is(result.oldFiles, 21);
  assert.is(result.foldedFiles, 9);
  assert.ok(result.catalog.entries > 500, `${result.catalog.entries} lines describe the schema`);
});

// The carry-over makes the triggers from the folded sql/009 on both sides, so only
// the comparison before it can see a trigger of 009 that differs from the chain's.
withChain('a folded bump trigger that differs from the chain\'s is seen, though the carry-over makes both sides alike', async () => {
  const migrations = readMigrations().map((m) => m.name === 'generation_bumps'
    ? { ...m, text: m.text.replace("for each row when (new.status = 'approved')", "for each row when (new.status <> 'pending')") }
    : m);
  assert.ok(migrations.some((m, i) => m.text !== readMigrations()[i]!.text), 'the trigger was changed');
  const result = await compareChains({ serverUrl, pgDumps: [], migrations });
  assert.is(result.catalog.diff, '');
  assert.is(result.beforeCarryOver.unexpected.length, 2);
  assert.ok(result.beforeCarryOver.unexpected.every((line) => line.includes('plugin_versions_bump_visibility_insert')));
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
