import type { Sql } from '../../src/db/pool.js';

// The plans of what a route really runs: the site is mounted in-process on a pool
// that records every query (runNamed goes through sql.unsafe with its text and
// bound parameters), one request is made, and each recorded query is run again
// under EXPLAIN (ANALYZE, BUFFERS) with the same parameters. Nothing is copied from
// the route's code, so the plans cannot drift from it.

export interface RecordedQuery {
  text: string;
  params: unknown[];
}

export function recordingSql(sql: Sql): { sql: Sql; take(): RecordedQuery[] } {
  let recorded: RecordedQuery[] = [];
  const proxy = new Proxy(sql, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property === 'unsafe' && typeof value === 'function') {
        return (text: string, params: unknown[] = [], options?: unknown) => {
          recorded.push({ text, params });
          return value.call(target, text, params, options);
        };
      }
      return value;
    },
  });
  return {
    sql: proxy,
    take: () => {
      const taken = recorded;
      recorded = [];
      return taken;
    },
  };
}

export interface Plan {
  /** The query's first comment line, which names what it is. */
  title: string;
  plan: string;
  /** Tables of the store read by a sequential scan, which no list, search or page may need. */
  seqScans: string[];
}

// plugin_pending_updates holds a row per approved plugin waiting for review: a handful, read whole.
const WATCHED = ['plugins', 'plugin_ratings', 'plugin_rating_replies'];

/** EXPLAIN (ANALYZE, BUFFERS) of `query`, run twice: the second, warm run is kept. */
export async function explain(sql: Sql, query: RecordedQuery): Promise<Plan> {
  const statement = `explain (analyze, buffers) ${query.text}`;
  await sql.unsafe(statement, query.params as never[]);
  const rows = (await sql.unsafe(statement, query.params as never[])) as unknown as Array<{ 'QUERY PLAN': string }>;
  const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
  const seqScans = WATCHED.filter((table) => new RegExp(`Seq Scan on ${table}\\b`).test(plan));
  const title = query.text.split('\n').find((line) => line.startsWith('--'))?.replace(/^--\s*/, '') ?? query.text.slice(0, 60);
  return { title, plan, seqScans };
}
