// Proof that the folded schema (sql/001_users..009_generation_bumps) is the one the
// second pre-release chain (sql/001..007 and sql/100..283, taken from git) made:
// one database is migrated by that chain and then carried over as a deployed one
// would be (src/db/pre-release-chain.ts), another by the folded files, the
// appended migrations (284 and up) on top of both, and their descriptions must be
// identical but for the order of objects (see folded-schema/compare.ts), as must
// their schema_migrations. Also shown: before the carry-over, the two chains alone
// differ in the generation bumps only. Run after `npx tsc -p test/tsconfig.json`:
//
//   node .test-build/scripts/check-folded-schema.js [--old COMMIT]
//
// PostgreSQL: CHECK_DATABASE_URL, a server on which it may create and drop two
// databases (e.g. Debian's PostgreSQL 15, whose pg_dump then dumps both); else an
// embedded one in a temporary folder (PostgreSQL 18, no pg_dump: the catalogue
// description alone). PG_DUMP names a pg_dump to use; by default Debian's, where
// it is as new as the server. Exits 0 when identical, 1 with a diff otherwise.

import { mkdtempSync, chmodSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '../src/lib/log.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded.js';
import { compareChains } from './folded-schema/compare.js';

const { values } = parseArgs({ options: { old: { type: 'string' } } });
const log = createLogger({ component: 'check-folded-schema' }, { level: 'warn' });
const pgDumps = [process.env.PG_DUMP, '/usr/lib/postgresql/18/bin/pg_dump', '/usr/lib/postgresql/17/bin/pg_dump',
  '/usr/lib/postgresql/16/bin/pg_dump', '/usr/lib/postgresql/15/bin/pg_dump'].filter((path): path is string => !!path);

let embedded: EmbeddedDatabase | undefined;
let scratch: string | undefined;
let serverUrl = process.env.CHECK_DATABASE_URL;
try {
  if (!serverUrl) {
    scratch = mkdtempSync(join(tmpdir(), 'lw-fold-check-'));
    chmodSync(scratch, 0o755);
    embedded = await startEmbeddedPostgres({ dir: join(scratch, 'pg'), log, ephemeral: true });
    serverUrl = embedded.url;
  }
  const result = await compareChains({ serverUrl, oldCommit: values.old, pgDumps });
  const say = (line: string) => process.stdout.write(line + '\n');
  say(`old chain: ${result.oldFiles} files at ${result.oldCommit.slice(0, 12)} (then carried over); folded chain: ${result.foldedFiles} files; appended to both: ${result.appendedFiles}`);
  say(`server: PostgreSQL ${result.serverVersion}`);
  if (result.pgDump) {
    const { version, schemaObjects, dataLines, schemaDiff, dataDiff } = result.pgDump;
    say(`pg_dump ${version} --schema-only: ${schemaDiff ? 'DIFFERENT' : `identical (${schemaObjects} objects, ordered by name)`}`);
    if (schemaDiff) say(schemaDiff);
    say(`pg_dump ${version} --data-only: ${dataDiff ? 'DIFFERENT' : `identical (${dataLines} rows)`}`);
    if (dataDiff) say(dataDiff);
  } else {
    say('pg_dump: none as new as the server here; the catalogue description decides');
  }
  say(`catalogue description: ${result.catalog.diff ? 'DIFFERENT' : `identical (${result.catalog.entries} lines)`}`);
  if (result.catalog.diff) say(result.catalog.diff);
  say(`schema_migrations: ${result.recorded.diff ? 'DIFFERENT' : `identical (${result.recorded.rows} rows, names and checksums)`}`);
  if (result.recorded.diff) say(result.recorded.diff);
  const { rewritten, functions, unexpected } = result.beforeCarryOver;
  say(`before the carry-over: ${functions.old} bump functions of the old chain, ${functions.folded} of the folded files; ${rewritten} triggers calling an old one, ${unexpected.length ? `${unexpected.length} lines DIFFERENT besides:` : 'the same as the folded files\' once they call bump_generation with its number; nothing else differs'}`);
  for (const line of unexpected) say(line);
  say(result.identical ? 'the folded schema is identical to the pre-release chain\'s, carried over' : 'the schemas differ');
  process.exitCode = result.identical ? 0 : 1;
} finally {
  await embedded?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}
