// Proof that the released schema (sql/001_users..009_generation_bumps) is the one
// every pre-release database is carried over to (src/db/pre-release-chain.ts): one
// database is migrated by the second pre-release chain (sql/001..007 and
// sql/100..283, taken from git), another by the pre-release fold (sql/001..009 as
// they were and the four files appended to it, 284..287, taken from git), and both
// are then carried over as a deployed one would be; a third gets the released
// files alone; migrations appended after the release (288 and up) run on all
// three. Their descriptions must be identical but for the order of objects (see
// folded-schema/compare.ts), as must their schema_migrations. Also shown: before
// any carry-over, the second chain and the pre-release fold's sql/001..009 differ
// in the generation bumps only. Run after `npx tsc -p test/tsconfig.json`:
//
//   node .test-build/scripts/check-folded-schema.js [--old COMMIT] [--fold COMMIT]
//
// PostgreSQL: CHECK_DATABASE_URL, a server on which it may create and drop three
// databases (e.g. Debian's PostgreSQL 15, whose pg_dump then dumps them); else an
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

const { values } = parseArgs({ options: { old: { type: 'string' }, fold: { type: 'string' } } });
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
  const result = await compareChains({ serverUrl, oldCommit: values.old, foldCommit: values.fold, pgDumps });
  const say = (line: string) => process.stdout.write(line + '\n');
  say(`second chain: ${result.secondChain.files} files at ${result.secondChain.commit.slice(0, 12)}; pre-release fold: ${result.preReleaseFold.files} files at ${result.preReleaseFold.commit.slice(0, 12)} (both then carried over); released: ${result.releasedFiles} files; appended to all three: ${result.appendedFiles}`);
  say(`server: PostgreSQL ${result.serverVersion}`);
  for (const [what, side] of [['second chain', result.secondChain], ['pre-release fold', result.preReleaseFold]] as const) {
    if (result.pgDump && side.pgDump) {
      const { version, schemaObjects, dataLines } = result.pgDump;
      say(`${what}: pg_dump ${version} --schema-only: ${side.pgDump.schemaDiff ? 'DIFFERENT' : `identical (${schemaObjects} objects, ordered by name)`}`);
      if (side.pgDump.schemaDiff) say(side.pgDump.schemaDiff);
      say(`${what}: pg_dump ${version} --data-only: ${side.pgDump.dataDiff ? 'DIFFERENT' : `identical (${dataLines} rows)`}`);
      if (side.pgDump.dataDiff) say(side.pgDump.dataDiff);
    } else {
      say(`${what}: pg_dump: none as new as the server here; the catalogue description decides`);
    }
    say(`${what}: catalogue description: ${side.catalog.diff ? 'DIFFERENT' : `identical (${result.catalog.entries} lines)`}`);
    if (side.catalog.diff) say(side.catalog.diff);
    say(`${what}: schema_migrations: ${side.recorded.diff ? 'DIFFERENT' : `identical (${result.recorded.rows} rows, names and checksums)`}`);
    if (side.recorded.diff) say(side.recorded.diff);
  }
  const { rewritten, functions, unexpected } = result.beforeCarryOver;
  say(`before the carry-over: ${functions.old} bump functions of the second chain, ${functions.folded} of the pre-release fold; ${rewritten} triggers calling an old one, ${unexpected.length ? `${unexpected.length} lines DIFFERENT besides:` : 'the same as the pre-release fold\'s once they call bump_generation with its number; nothing else differs'}`);
  for (const line of unexpected) say(line);
  say(result.identical ? 'the released schema is identical to the second chain\'s and the pre-release fold\'s, carried over' : 'the schemas differ');
  process.exitCode = result.identical ? 0 : 1;
} finally {
  await embedded?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}
