import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { projectRoot } from '../lib/project-root.js';
import { breakerOf, type Breaker } from './breaker.js';
import { databaseUnreachable, QUERY_TIMEOUT_MS, withDeadline } from './deadline.js';
import type { Sql } from './pool.js';
import { poolUse } from './pool-use.js';
import type { QueryParams, QueryRows } from './query-rows.js';

// Named queries live in sql/queries/<area>/<name>.sql as real SQL with $1, $2...
// placeholders, one file each, named as they are called. They are read once, at
// start-up, so no request reads a file. A query may name its parameters in its comments,
//
//   -- params: $1 plugin_id, $2 changed_fields, $3 name
//
// (several such lines add up; `-- params: none` for a query without any), and every
// query does (test/db/query-shapes.test.ts). It is run with runNamed and an object,
// so a call reads like the SQL it runs; runQuery, which takes them in $n order, is
// this module's own (test/db/run-query-private.test.ts).
// Loading checks that every $n of the text has a name, every name a $n, and
// runNamed that every name is passed, nothing more. What each query returns is
// typed in src/db/query-rows.ts, written from PostgreSQL's own description of it
// (scripts/query-rows.ts), which runNamed's answer takes.

let cache: Map<string, string> | undefined;
const declared = new Map<string, readonly string[]>();

const PARAMS_LINE = /^--\s*params:(.*)$/gm;
const PARAM_ENTRY = /^\$(\d+) ([a-z][a-z0-9_]*)$/;

/** The parameter names a query's `-- params:` lines declare, in $n order; undefined when it has none. */
export function declaredParams(name: string, text: string): string[] | undefined {
  const fail = (why: string) => new Error(`sql/queries/${name}: ${why}`);
  const lines = [...text.matchAll(PARAMS_LINE)];
  if (lines.length === 0) return undefined;
  const names: string[] = [];
  if (lines.length === 1 && lines[0]![1]!.trim() === 'none') return checkUsed(name, text, names);
  for (const line of lines) {
    for (const entry of line[1]!.split(',').map((part) => part.trim()).filter(Boolean)) {
      const match = PARAM_ENTRY.exec(entry);
      if (!match) throw fail(`"${entry}" is not "$n name" (a lower-case name)`);
      if (Number(match[1]) !== names.length + 1) throw fail(`$${match[1]} is declared where $${names.length + 1} is due`);
      if (names.includes(match[2]!)) throw fail(`the name ${match[2]} is declared twice`);
      names.push(match[2]!);
    }
  }
  if (names.length === 0) throw fail('"-- params:" names nothing; write "-- params: none" for a query without parameters');
  return checkUsed(name, text, names);
}

function checkUsed(name: string, text: string, names: string[]): string[] {
  const fail = (why: string) => new Error(`sql/queries/${name}: ${why}`);
  // The $n of the SQL itself, outside comments.
  const code = text.replace(/--.*$/gm, '');
  const used = new Set([...code.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])));
  for (const n of used) if (n < 1 || n > names.length) throw fail(`$${n} has no name in its "-- params:" lines`);
  names.forEach((param, index) => {
    if (!used.has(index + 1)) throw fail(`$${index + 1} ${param} is declared but not used`);
  });
  return names;
}

export function loadQueries(dir = join(projectRoot(), 'sql', 'queries')): Map<string, string> {
  const queries = new Map<string, string>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder)) {
      const full = join(folder, entry);
      const name = relative(dir, full).split(sep).join('/');
      if (statSync(full).isDirectory()) walk(full);
      else if (entry.endsWith('.sql')) add(name.replace(/\.sql$/, ''), readFileSync(full, 'utf8'));
    }
  };
  const add = (name: string, text: string) => {
    if (queries.has(name)) throw new Error(`sql/queries/: two sources for the query ${name}`);
    const params = declaredParams(name, text);
    if (params) declared.set(name, params);
    queries.set(name, text);
  };
  walk(dir);
  return queries;
}

/** The text of query `name` ("auth/find-session"); an unknown name is a bug. */
export function queryText(name: string): string {
  cache ??= loadQueries();
  const text = cache.get(name);
  if (text === undefined) throw new Error(`no query sql/queries/${name}.sql`);
  return text;
}

/** Reads and checks every query now (at start-up), so a bad one stops the process, not a request. */
export function checkQueries(): void {
  cache ??= loadQueries();
}

/**
 * Runs a query that names its parameters (`-- params:`) with an object of them:
 * `runNamed(sql, 'store/create-plugin', { id, submitter_id, ... })`. A missing or
 * unknown name is a bug in the caller and throws before anything is sent. Its
 * rows are typed as PostgreSQL describes them (src/db/query-rows.ts).
 */
export function runNamed<N extends keyof QueryParams>(sql: Sql, name: N, params: Readonly<QueryParams[N]>): Promise<Array<QueryRows[N]>> {
  queryText(name);
  const names = declared.get(name);
  if (names === undefined) throw new Error(`sql/queries/${name}.sql declares no "-- params:" (write "-- params: none" for a query without any)`);
  const given = params as Readonly<Record<string, unknown>>;
  const values = names.map((param) => {
    if (!(param in given)) throw new Error(`${name}: parameter ${param} is not given`);
    return given[param];
  });
  for (const param in given) if (!names.includes(param)) throw new Error(`${name}: ${param} is no parameter of it (${names.join(', ')})`);
  return runQuery<QueryRows[N]>(sql, name, values);
}

/** What postgres.js's query object offers beyond a promise (see `abandon`). */
interface PendingQuery<T> extends PromiseLike<T> {
  /** Set once the query is handed to a connection; null while it waits for one. */
  state?: unknown;
  cancel(): unknown;
}

/**
 * Runs a named query with bound parameters (never string-built SQL), bounded in
 * time: past QUERY_TIMEOUT_MS it rejects with 503 UNAVAILABLE (see deadline.ts);
 * while the pool's breaker is open (breaker.ts), at once. runNamed's alone: its
 * positional parameters are checked only in number.
 */
function runQuery<T extends object>(sql: Sql, name: string, params: unknown[]): Promise<T[]> {
  const text = queryText(name);
  const names = declared.get(name);
  if (names !== undefined && params.length !== names.length) throw new Error(`${name} takes ${names.length} parameters (${names.join(', ')}), not ${params.length}`);
  const breaker = breakerOf(sql);
  if (breaker !== undefined && breaker.downSince !== 0) return Promise.reject(databaseUnreachable());
  const send = () => sql.unsafe(text, params as never[], { prepare: true }) as unknown as PendingQuery<T[]>;
  let query = send();
  // Asked once more when refused with a shutdown notice left over from before a restart (see leftOverNotice).
  const asked = Promise.resolve(query).catch((error: unknown) => {
    if (!leftOverNotice(error, query)) throw error;
    query = send();
    return query;
  });
  const answer = withDeadline(asked, QUERY_TIMEOUT_MS, () => abandon(query, breaker), breaker);
  // A query inside a transaction uses the transaction's connection, counted there.
  if (transactions.has(sql)) return answer;
  poolUse.queries++;
  return answer.finally(() => poolUse.queries--);
}

/**
 * True when `query` was refused with PostgreSQL's "terminating connection" notice
 * (57P01 admin_shutdown, 57P02 crash_shutdown) although it was never sent (postgres.js
 * sets `state` when it hands a query to a connection). A server says that only to a
 * session it ends, so the notice is a leftover: postgres.js 3.4 keeps the error of a
 * query cut off by a shutdown in its connection and, when that connection next
 * connects to the server that is back (maybe minutes later, when the load first
 * needs it), fails the query that made it connect with it. In a 30-minute soak a
 * store detail got 503 31 s after PostgreSQL was back, and the breaker opened on a
 * healthy server. Nothing ran, so asking again is safe, writes included.
 */
export function leftOverNotice(error: unknown, query: { state?: unknown }): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (code === '57P01' || code === '57P02') && query.state == null;
}

/** The `tx` handles of transactions under way (see poolUse). */
const transactions = new WeakSet<Sql>();

/**
 * A query past its deadline that still waits for a connection is taken out of the
 * queue, so it never runs after its request was answered. One already sent is
 * left to finish or to the server's statement_timeout: postgres.js cancels a sent
 * query over a new connection whose failure it does not let us catch (an
 * unhandled rejection), and when the server has stopped answering, a cancel
 * request would not get through anyway. A sent query outliving its deadline
 * hints at a hung server (a live server's statement_timeout, below the deadline,
 * would have ended it) but a starved one does it too, so the breaker suspects and
 * opens only when a probe confirms (breaker.ts); a query that only waited for a
 * connection (a busy pool) does not even make it suspect.
 */
function abandon<T>(query: PendingQuery<T>, breaker: Breaker | undefined): void {
  if (query.state == null) query.cancel();
  else breaker?.suspect();
}

/**
 * Runs `work` in a transaction (sql.begin) bounded as a whole by `ms`; past it the
 * request gets 503 at once. Work that finishes after that is rolled back rather
 * than committed, so the answer does not lie about it; a transaction stuck on a
 * hung server is ended by PostgreSQL (statement_timeout,
 * idle_in_transaction_session_timeout). Each query inside should use runNamed(tx, ...).
 */
export function inTransaction<T>(sql: Sql, work: (tx: Sql) => Promise<T>, ms = 2 * QUERY_TIMEOUT_MS): Promise<T> {
  const breaker = breakerOf(sql);
  if (breaker !== undefined && breaker.downSince !== 0) return Promise.reject(databaseUnreachable());
  let abandoned = false;
  let began = false;
  poolUse.transactions++;
  const begin = () => sql.begin(async (tx) => {
    began = true;
    transactions.add(tx as unknown as Sql);
    const result = await work(tx as unknown as Sql);
    if (abandoned) throw new Error('transaction outlived its deadline; rolled back');
    return result;
  }) as Promise<T>;
  // BEGIN refused with a leftover shutdown notice (leftOverNotice): nothing ran, begin again once.
  const transaction = begin().catch((error: unknown) => {
    if (began || abandoned || !leftOverNotice(error, {})) throw error;
    return begin();
  });
  return withDeadline(transaction, ms, () => {
    abandoned = true;
  }, breaker).finally(() => poolUse.transactions--);
}
