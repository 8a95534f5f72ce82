import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { projectRoot } from '../core/project-root.js';

// Named queries live in sql/queries/<area>/<name>.sql as real SQL with $1, $2...
// placeholders. They are read once, at start-up, so no request reads a file.

let cache: Map<string, string> | undefined;

export function loadQueries(dir = join(projectRoot(), 'sql', 'queries')): Map<string, string> {
  const queries = new Map<string, string>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder)) {
      const full = join(folder, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (entry.endsWith('.sql')) {
        queries.set(relative(dir, full).split(sep).join('/').replace(/\.sql$/, ''), readFileSync(full, 'utf8'));
      }
    }
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

/** Runs a named query with bound parameters (never string-built SQL). */
export function runQuery<T extends object = Record<string, unknown>>(
  sql: import('./pool.js').Sql,
  name: string,
  params: unknown[] = [],
): Promise<T[]> {
  return sql.unsafe(queryText(name), params as never[], { prepare: true }) as unknown as Promise<T[]>;
}
