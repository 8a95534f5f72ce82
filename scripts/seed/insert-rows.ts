import type { Sql } from '../../src/db/pool.js';

// Many rows in few statements: each batch is one INSERT ... SELECT FROM unnest() of
// one array parameter per column, sent as text and cast in SQL. Near COPY's speed,
// and unlike COPY through postgres.js, a refused row fails the statement cleanly
// (a COPY error leaves postgres.js waiting for an answer that never comes).

export type Value = string | number | boolean | Date | null | readonly string[] | object;

export interface Column {
  name: string;
  /** SQL type the text is cast to: text, bigint, integer, boolean, timestamptz, text[], jsonb... */
  type: string;
}

export const BATCH_ROWS = 5000;

export async function insertRows(sql: Sql, table: string, columns: readonly Column[], rows: Iterable<readonly Value[]>): Promise<number> {
  const names = columns.map((c) => c.name);
  const statement =
    `insert into ${table} (${names.join(', ')}) ` +
    `select ${columns.map((c, i) => `c${i}::${c.type}`).join(', ')} ` +
    `from unnest(${columns.map((_, i) => `$${i + 1}::text[]`).join(', ')}) as u(${columns.map((_, i) => `c${i}`).join(', ')})`;
  let batch: Array<Array<string | null>> = columns.map(() => []);
  let inBatch = 0;
  let total = 0;
  const flush = async () => {
    if (inBatch === 0) return;
    await sql.unsafe(statement, batch as never[], { prepare: true });
    total += inBatch;
    batch = columns.map(() => []);
    inBatch = 0;
  };
  for (const row of rows) {
    row.forEach((value, i) => batch[i]!.push(asText(value, columns[i]!.type)));
    if (++inBatch === BATCH_ROWS) await flush();
  }
  await flush();
  return total;
}

function asText(value: Value, type: string): string | null {
  if (value === null) return null;
  if (type === 'jsonb' || type === 'json') return JSON.stringify(value);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return arrayLiteral(value as readonly string[]);
  throw new Error(`no text form for a ${typeof value} in a ${type} column`);
}

/** A PostgreSQL text[] literal: {"a","b"} with quotes and backslashes escaped. */
function arrayLiteral(items: readonly string[]): string {
  return `{${items.map((item) => `"${item.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}
