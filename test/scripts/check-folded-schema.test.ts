// scripts/check-folded-schema.ts: the pre-release chain (from git) and the folded
// files, each with the appended migrations on top, make the same schema and rows on
// the test server; and the comparison does see a difference when there is one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compareChains, normalizeDump } from '../../scripts/folded-schema/compare.js';

const serverUrl = (() => {
  const url = new URL(process.env.TEST_DB_URL!);
  url.pathname = '/postgres';
  return url.href;
})();

test('the folded schema is identical to the pre-release chain\'s (catalogue, and pg_dump where one fits the server)', async () => {
  const result = await compareChains({ serverUrl, pgDumps: ['/usr/lib/postgresql/15/bin/pg_dump'] });
  assert.is(result.catalog.diff, '');
  if (result.pgDump) assert.equal([result.pgDump.schemaDiff, result.pgDump.dataDiff], ['', '']);
  assert.ok(result.identical);
  assert.is(result.oldFiles, 28);
  assert.is(result.foldedFiles, 7);
  assert.ok(result.catalog.entries > 500, `${result.catalog.entries} lines describe the schema`);
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
