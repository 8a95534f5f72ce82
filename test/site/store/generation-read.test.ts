// Every kept answer starts with one read (sql/queries/store/generation.sql): the
// store's generation and whether the viewer submitted any plugin. It runs on every
// request of every logged-in user, prepared, so PostgreSQL soon plans it once for
// any viewer (a generic plan); that plan must read plugins through the submitter
// index for whoever asks, or a user with no plugin pays a scan of every plugin per
// request where one author owns most of them (bench-store's administrator rows).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { queryText } from '../../../src/db/queries.js';
import { closeTestSql, testSql } from '../../helpers/servers.js';

const sql = testSql();

test.after(async () => {
  await closeTestSql();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** Every node of the generic plan of the generation read over `rows` plugins of one author. */
async function genericPlan(rows: number): Promise<PlanNode[]> {
  const nodes: PlanNode[] = [];
  const walk = (node: PlanNode) => {
    nodes.push(node);
    for (const child of node.Plans ?? []) walk(child);
  };
  await sql.begin(async (tx) => {
    // A temporary table shadows public.plugins for this transaction only (pg_temp is searched first).
    await tx.unsafe(`create temp table plugins (id text primary key, submitter_id bigint not null, updated_at timestamptz not null) on commit drop`);
    await tx.unsafe(`create index on plugins (submitter_id, updated_at desc, id)`);
    await tx.unsafe(`insert into plugins select 'g' || i, 1, now() - i * interval '1 second' from generate_series(1, ${rows}) as i`);
    await tx.unsafe('analyze plugins');
    const [row] = await tx.unsafe(`explain (generic_plan, format json) ${queryText('store/generation')}`);
    walk((row!['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan);
  });
  return nodes;
}

test('the generation read scans every plugin for a user with none when one author owns them all (it must use the submitter index)', async () => {
  const onPlugins = (await genericPlan(10_000)).filter((node) => node['Relation Name'] === 'plugins').map((node) => node['Node Type']);
  assert.equal(onPlugins, ['Index Only Scan']);
});

test.run();
