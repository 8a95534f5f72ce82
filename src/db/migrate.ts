import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../lib/log.js';
import { projectRoot } from '../lib/project-root.js';
import type { Migration } from './migration.js';
import type { Sql } from './pool.js';
import { checkChain, type ChainCheck } from './pre-release-chain.js';
import { outOfOrder, readReleased } from './released.js';

const MIGRATION_FILE = /^(\d{3})_([a-z0-9_]+)\.sql$/;
// Any fixed number works; it only has to be the same in every process of this app.
const MIGRATION_LOCK_ID = 7_406_311_842;

export function readMigrations(dir = join(projectRoot(), 'sql')): Migration[] {
  const migrations = readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .map((file) => {
      const match = MIGRATION_FILE.exec(file);
      if (!match) throw new Error(`sql/${file}: migration files are named NNN_name.sql`);
      const text = readFileSync(join(dir, file), 'utf8');
      return { version: Number(match[1]), name: match[2]!, text, checksum: createHash('sha256').update(text).digest('hex') };
    })
    .sort((a, b) => a.version - b.version);
  migrations.forEach((migration, i) => {
    if (i > 0 && migrations[i - 1]!.version === migration.version) {
      throw new Error(`sql/: two migrations numbered ${migration.version}`);
    }
  });
  // A folder with a released list (sql/ itself, not old files taken from git):
  // a file that is not appended after the released ones never runs.
  const released = readReleased(dir);
  const wrong = released ? outOfOrder(migrations, released) : [];
  if (wrong.length > 0) throw new Error(wrong.join('; '));
  return migrations;
}

/** Where the statements a carried-over database runs are kept (pre-release-chain.ts). */
const CARRY_OVER_DIR = join('sql', 'carry-over');

/**
 * Applies pending migrations in order, each in its own transaction, recorded in
 * schema_migrations. A session-level advisory lock makes two processes starting
 * together take turns: the second finds nothing left to do. A database whose
 * schema_migrations do not fit the files (the pre-release chain) is refused before
 * anything is applied (MigrationChainError, one line saying what to do); one of the
 * whole second pre-release chain or of the pre-release fold is first carried over
 * to the released files.
 */
export async function migrate(sql: Sql, log: Logger, migrations = readMigrations()): Promise<number> {
  const connection = await sql.reserve();
  try {
    // A migration (or waiting for another process's) may rightly take longer than
    // the pool's statement_timeout, which is for serving requests; reset below.
    await connection`set statement_timeout = 0`;
    await connection`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    await connection`
      create table if not exists schema_migrations (
        version integer primary key,
        name text not null,
        checksum text not null,
        applied_at timestamptz not null default now()
      )`;
    const rows = await connection<{ version: number; name: string; checksum: string }[]>`select version, name, checksum from schema_migrations`;
    const chain = checkChain(rows, migrations);
    if (chain.kind === 'carry-over') {
      await carryOver(connection, chain);
      log.info(`the ${chain.from === 'second chain' ? 'second pre-release migration chain' : 'pre-release fold'} is carried over to the released files`, { replaced: chain.replaced.length, released: chain.released.length, ran: chain.steps.length });
      rows.splice(0, rows.length, ...(await connection<typeof rows>`select version, name, checksum from schema_migrations`));
    }
    const applied = new Map<number, string>();
    for (const row of rows) applied.set(row.version, row.checksum);
    let count = 0;
    for (const migration of migrations) {
      const known = applied.get(migration.version);
      if (known !== undefined) {
        if (known !== migration.checksum) {
          log.warn('applied migration has changed since it ran', { version: migration.version, name: migration.name });
        }
        continue;
      }
      // A reserved connection has no begin(): the transaction is spelled out.
      await connection.unsafe('begin');
      try {
        await connection.unsafe(migration.text);
        await connection`insert into schema_migrations (version, name, checksum)
                         values (${migration.version}, ${migration.name}, ${migration.checksum})`;
        await connection.unsafe('commit');
      } catch (error) {
        await connection.unsafe('rollback').catch(() => {});
        throw new Error(`migration sql/${String(migration.version).padStart(3, '0')}_${migration.name}.sql failed: ${error instanceof Error ? error.message : error}`);
      }
      log.info('migration applied', { version: migration.version, name: migration.name });
      count++;
    }
    return count;
  } finally {
    await connection`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`.catch(() => {});
    await connection`reset statement_timeout`.catch(() => {});
    connection.release();
  }
}

/**
 * Carries a database of the whole second pre-release chain or of the pre-release
 * fold over to the released files, in one transaction: the steps run, and
 * schema_migrations records the released files instead of the rows replaced.
 */
async function carryOver(connection: Awaited<ReturnType<Sql['reserve']>>, chain: Extract<ChainCheck, { kind: 'carry-over' }>): Promise<void> {
  await connection.unsafe('begin');
  try {
    for (const step of chain.steps) {
      await connection.unsafe('carryOver' in step ? readFileSync(join(projectRoot(), CARRY_OVER_DIR, step.carryOver), 'utf8') : step.migration.text);
    }
    await connection`delete from schema_migrations where version = any(${chain.replaced}::integer[])`;
    for (const migration of chain.released) {
      await connection`insert into schema_migrations (version, name, checksum)
                       values (${migration.version}, ${migration.name}, ${migration.checksum})`;
    }
    await connection.unsafe('commit');
  } catch (error) {
    await connection.unsafe('rollback').catch(() => {});
    // PostgreSQL names what depends on an old function in the detail, not the message.
    const detail = (error as { detail?: unknown }).detail;
    const why = `${error instanceof Error ? error.message : error}${typeof detail === 'string' && detail ? ` (${detail.replace(/\s*\n\s*/g, '; ')})` : ''}`;
    const from = chain.from === 'second chain' ? 'the second pre-release chain' : 'the pre-release fold';
    throw new Error(`carrying ${from} over to the released files failed (nothing was changed): ${why}`);
  }
}
