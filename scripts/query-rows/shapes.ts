// What PostgreSQL says each named query takes and returns, asked without running
// it (postgres.js `describe()`: Parse and Describe, no Execute), and the TypeScript
// that src/db/query-rows.ts holds of it. scripts/query-rows.ts writes that file;
// test/db/query-shapes.test.ts describes again and fails when the two differ, as
// sqlx's offline data does, so a query whose columns change fails before the code
// that reads them does.
import type { Sql } from '../../src/db/pool.js';

export interface ColumnShape {
  name: string;
  /** The TypeScript type of the value postgres.js parses (src/db/pool.ts sets no parsers of its own). */
  type: string;
  nullable: boolean;
}

export interface QueryShape {
  name: string;
  /** How many parameters PostgreSQL found ($1..$n). */
  paramCount: number;
  /** undefined for a statement that returns no rows (no RowDescription, or no column). */
  columns: ColumnShape[] | undefined;
}

interface Described {
  types: number[];
  columns: Array<{ name: string; table: number; number: number; type: number }> | null;
}

interface PgType {
  oid: number;
  typtype: string;
  typcategory: string;
  typbasetype: number;
  typelem: number;
}

// postgres.js's own parsers (node_modules/postgres/src/types.js): these OIDs become
// numbers, booleans, Dates, parsed JSON and Buffers; any other scalar stays the
// text PostgreSQL sent (int8 and numeric included, as no BigInt parser is set).
const scalars = new Map<number, string>([
  [21, 'number'], [23, 'number'], [26, 'number'], [700, 'number'], [701, 'number'],
  [16, 'boolean'],
  [1082, 'Date'], [1114, 'Date'], [1184, 'Date'],
  [114, 'unknown'], [3802, 'unknown'],
  [17, 'Buffer'],
  [2278, 'unknown'], // void: what pg_notify() and the advisory locks return
]);

/** The TypeScript type of a value of type `oid`: domains as their base type, arrays as arrays of their element's. */
export function typeOf(oid: number, types: ReadonlyMap<number, PgType>): string {
  const scalar = scalars.get(oid);
  if (scalar !== undefined) return scalar;
  const type = types.get(oid);
  if (type === undefined) throw new Error(`type ${oid} is not in pg_type`);
  if (type.typtype === 'd') return typeOf(type.typbasetype, types);
  // Elements are typed as never null, as sqlx does: a null inside an array column is a bug the query should not allow.
  if (type.typcategory === 'A' && type.typelem !== 0) {
    const element = typeOf(type.typelem, types);
    return /^[A-Za-z]+$/.test(element) ? `${element}[]` : `Array<${element}>`;
  }
  return type.typtype === 'b' || type.typtype === 'e' ? 'string' : 'unknown';
}

// A column can be null after an outer join or a grouping set even when its table
// says NOT NULL; describe() does not tell which side of a join a column is on,
// so such a query's columns are all taken as nullable.
const NULLS_ADDED = /\b(left|right|full)\s+(outer\s+)?join\b|\bgrouping\s+sets\b|\brollup\s*\(|\bcube\s*\(/i;

/**
 * Describes every query. A column is non-null when it is a column of a table
 * declared NOT NULL (PostgreSQL names the table and column of a plain column
 * reference, through subqueries, CTEs and RETURNING) and the query adds no nulls
 * of its own (NULLS_ADDED), or when the query vouches for it (`-- not null:`);
 * otherwise (an expression, an aggregate, a view's column) nullable.
 */
export async function describeQueries(sql: Sql, queries: ReadonlyMap<string, string>): Promise<QueryShape[]> {
  const types = new Map<number, PgType>();
  for (const row of await sql<PgType[]>`
      select oid::int as oid, typtype::text as typtype, typcategory::text as typcategory,
             typbasetype::int as typbasetype, typelem::int as typelem
        from pg_type`) types.set(row.oid, row);
  const notNull = new Set<string>();
  for (const row of await sql<Array<{ table: number; number: number }>>`
      select a.attrelid::int as table, a.attnum::int as number
        from pg_attribute a join pg_class c on c.oid = a.attrelid
       where a.attnotnull and a.attnum > 0 and c.relkind in ('r', 'p')`) notNull.add(`${row.table}.${row.number}`);

  const shapes: QueryShape[] = [];
  for (const name of [...queries.keys()].sort()) {
    const text = queries.get(name)!;
    let described: Described;
    try {
      described = await sql.unsafe(text).describe() as unknown as Described;
    } catch (error) {
      throw new Error(`sql/queries/${name}.sql: PostgreSQL refuses it: ${(error as Error).message}`);
    }
    const code = text.replace(/--.*$/gm, '');
    const addsNulls = NULLS_ADDED.test(code);
    const vouched = notNullLines(name, text);
    // postgres.js leaves the columns of a statement without RowDescription empty.
    const columns = !described.columns?.length ? undefined : described.columns.map((column) => ({
      name: column.name,
      type: typeOf(column.type, types),
      nullable: !vouched.has(column.name) && (addsNulls || column.table === 0 || !notNull.has(`${column.table}.${column.number}`)),
    }));
    for (const vouch of vouched) {
      if (!columns?.some((column) => column.name === vouch)) throw new Error(`sql/queries/${name}.sql: "-- not null:" names ${vouch}, which it does not return`);
    }
    const seen = new Set<string>();
    for (const column of columns ?? []) {
      if (seen.has(column.name)) throw new Error(`sql/queries/${name}.sql: two columns named ${column.name}; postgres.js keeps only the last`);
      seen.add(column.name);
    }
    shapes.push({ name, paramCount: described.types.length, columns });
  }
  return shapes;
}

/**
 * The columns a query vouches for in `-- not null: expires_in_ms, generation`
 * lines: expressions PostgreSQL cannot tell are never null (a count, a
 * coalesce), as sqlx's `"name!"` does. A claim the query's own text must bear out.
 */
function notNullLines(name: string, text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.matchAll(/^--\s*not null:(.*)$/gm)) {
    for (const entry of line[1]!.split(',').map((part) => part.trim())) {
      if (!/^[a-z_][a-z0-9_]*$/.test(entry)) throw new Error(`sql/queries/${name}.sql: "${entry}" in "-- not null:" is no column name`);
      names.add(entry);
    }
  }
  return names;
}

/** "auth/find-session" → "AuthFindSessionRow". */
export function rowTypeName(query: string): string {
  return query.split(/[/-]/).map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('') + 'Row';
}

const property = (name: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : JSON.stringify(name));

/** src/db/query-rows.ts: one interface per query that returns rows, and the map runNamed reads its types from. */
export function renderQueryRows(shapes: readonly QueryShape[], params: ReadonlyMap<string, readonly string[]>): string {
  const out: string[] = [
    '// Generated by scripts/query-rows.ts (`npm run query-rows`) from what PostgreSQL',
    '// describes of each query of sql/queries/ on the migrated schema: do not edit.',
    '// test/db/query-shapes.test.ts fails when a query no longer returns what is',
    '// written here. A column is `| null` unless it is a NOT NULL column of a table',
    '// and the query has no outer join, or the query vouches for it in a',
    '// `-- not null:` line (scripts/query-rows/shapes.ts).',
    '',
  ];
  for (const shape of shapes) {
    if (shape.columns === undefined) continue;
    out.push(`/** A row of sql/queries/${shape.name}.sql. */`);
    out.push(`export interface ${rowTypeName(shape.name)} {`);
    for (const column of shape.columns) out.push(`  ${property(column.name)}: ${column.type}${column.nullable ? ' | null' : ''};`);
    out.push('}', '');
  }
  out.push('/** The row of each query; `never` for a statement that returns none. */');
  out.push('export interface QueryRows {');
  for (const shape of shapes) out.push(`  '${shape.name}': ${shape.columns === undefined ? 'never' : rowTypeName(shape.name)};`);
  out.push('}', '');
  out.push('/** The parameters each query names in its `-- params:` lines, as runNamed takes them. */');
  out.push('export interface QueryParams {');
  for (const shape of shapes) {
    const names = params.get(shape.name);
    if (names === undefined) continue;
    out.push(`  '${shape.name}': ${names.length === 0 ? 'Record<string, never>' : `{ ${names.map((name) => `${property(name)}: unknown`).join('; ')} }`};`);
  }
  out.push('}', '');
  return out.join('\n');
}
