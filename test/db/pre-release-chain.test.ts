// A database migrated by the pre-release chain (sql/001_init..071, folded into
// sql/001..007) is recognised before anything is applied: start-up refuses it with
// one line saying what to do, and `npm run migrate -- --adopt-pre-release` records
// a complete one as the folded chain. The old files come from git, as
// scripts/check-folded-schema.ts takes them.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/lib/log.js';
import { migrate, readMigrations, type Migration } from '../../src/db/migrate.js';
import type { Sql } from '../../src/db/pool.js';
import { checkChain, FOLDED_CHAIN, MigrationChainError, PRE_RELEASE_CHAIN } from '../../src/db/pre-release-chain.js';
import { preReleaseCommit, preReleaseMigrations } from '../../scripts/folded-schema/compare.js';

const serverUrl = (name: string) => {
  const url = new URL(process.env.TEST_DB_URL!);
  url.pathname = '/' + name;
  return url.href;
};
const admin = postgres(serverUrl('postgres'), { max: 1, onnotice: () => {} });
const oldChain = preReleaseMigrations(preReleaseCommit());
const current = readMigrations();
const made: string[] = [];

/** A new database migrated with `migrations`, and a pool on it. */
async function databaseMigratedBy(migrations: Migration[]): Promise<{ url: string; sql: Sql }> {
  const name = `chain_${process.pid}_${made.length}`;
  await admin.unsafe(`create database ${name}`);
  made.push(name);
  const sql = postgres(serverUrl(name), { max: 2, onnotice: () => {} }) as unknown as Sql;
  if (migrations.length) await migrate(sql, silentLogger, migrations);
  return { url: serverUrl(name), sql };
}

const recorded = async (sql: Sql) =>
  (await sql<{ version: number; name: string }[]>`select version, name from schema_migrations order by version`).map((row) => `${row.version} ${row.name}`);
const tables = async (sql: Sql) =>
  (await sql<{ name: string }[]>`select relname as name from pg_class where relnamespace = 'public'::regnamespace and relkind = 'r' order by 1`).map((row) => row.name);

test.after(async () => {
  for (const name of made) await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
  await admin.end();
});

test('the old chain taken from git is the pre-release chain this code knows', () => {
  assert.equal(oldChain.map((m) => [m.version, m.name]), PRE_RELEASE_CHAIN.map(([version, name]) => [version, name]));
  assert.equal(current.filter((m) => m.version < 100).map((m) => [m.version, m.name]), FOLDED_CHAIN.map(([version, name]) => [version, name]));
});

test('a database of the whole pre-release chain is refused before anything is applied, with what to do', async () => {
  const { sql } = await databaseMigratedBy(oldChain);
  try {
    const before = { recorded: await recorded(sql), tables: await tables(sql) };
    try {
      await migrate(sql, silentLogger, current);
      assert.unreachable('migrated');
    } catch (error) {
      assert.instance(error, MigrationChainError);
      const message = (error as Error).message;
      assert.not.match(message, /\n/);
      assert.match(message, /^this database was migrated by the pre-release chain sql\/001_init\.sql\.\.sql\/071_plugin_search_sync_cheap_updates\.sql, since folded into sql\/001\.\.007 with the same schema: nothing was applied; run `npm run migrate -- --adopt-pre-release` once/);
    }
    assert.equal(await recorded(sql), before.recorded);
    assert.equal(await tables(sql), before.tables);
  } finally {
    await sql.end();
  }
});

test('--adopt-pre-release records the whole pre-release chain as the folded one, then applies what was appended', async () => {
  const { sql } = await databaseMigratedBy(oldChain);
  try {
    const tablesBefore = await tables(sql);
    const appended = current.filter((m) => m.version >= 100);
    assert.is(await migrate(sql, silentLogger, current, { adoptPreRelease: true }), appended.length);
    assert.equal(await recorded(sql), current.map((m) => `${m.version} ${m.name}`));
    const checksums = await sql<{ version: number; checksum: string }[]>`select version, checksum from schema_migrations order by version`;
    assert.equal(checksums.map((row) => row.checksum), current.map((m) => m.checksum));
    if (appended.length === 0) assert.equal(await tables(sql), tablesBefore);
    // From then on it is an ordinary database of the folded chain.
    assert.is(await migrate(sql, silentLogger, current), 0);
  } finally {
    await sql.end();
  }
});

test('a database of part of the pre-release chain is refused, adopt or not, and told to dump and recreate', async () => {
  const partial = oldChain.filter((m) => m.version <= 50);
  const { sql } = await databaseMigratedBy(partial);
  try {
    const before = await recorded(sql);
    for (const adoptPreRelease of [false, true]) {
      try {
        await migrate(sql, silentLogger, current, { adoptPreRelease });
        assert.unreachable('migrated');
      } catch (error) {
        assert.instance(error, MigrationChainError);
        assert.match((error as Error).message, new RegExp(`^this database was migrated by part of the pre-release chain \\(up to sql/050_store_generation\\.sql, ${partial.length} of ${PRE_RELEASE_CHAIN.length} files\\), since folded into sql/001\\.\\.007: nothing was applied; dump your data`));
      }
    }
    assert.equal(await recorded(sql), before);
  } finally {
    await sql.end();
  }
});

const other: Array<{ what: string; applied: Array<{ version: number; name: string }>; message: RegExp | null }> = [
  { what: 'the folded chain itself', applied: FOLDED_CHAIN.map(([version, name]) => ({ version, name })), message: null },
  { what: 'nothing yet', applied: [], message: null },
  { what: 'an appended migration of another branch', applied: [{ version: 1, name: 'users' }, { version: 105, name: 'elsewhere' }], message: null },
  { what: 'another file under a folded number', applied: [{ version: 2, name: 'not_plugins' }], message: /^schema_migrations records version 2 as "not_plugins" but sql\/ holds sql\/002_plugins\.sql: .*nothing was applied/ },
];

for (const { what, applied, message } of other) {
  test(`checkChain: ${what}`, () => {
    if (!message) return void assert.equal(checkChain(applied, current, false), { kind: 'current' });
    assert.throws(() => checkChain(applied, current, true), (error: Error) => error instanceof MigrationChainError && message.test(error.message));
  });
}

test('npm run migrate on a pre-release database: exit 1 and one line on stderr saying what to do', async () => {
  const { url, sql } = await databaseMigratedBy(oldChain);
  await sql.end();
  const entry = fileURLToPath(new URL('../../src/migrate.js', import.meta.url));
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [entry, ...args], { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'error' }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('close', (code) => resolve({ code, stderr }));
    });
  const refused = await run([]);
  assert.is(refused.code, 1, refused.stderr);
  const lines = refused.stderr.split('\n').filter((line) => line && !line.startsWith('{'));
  assert.is(lines.length, 1, refused.stderr);
  assert.match(lines[0]!, /^migration failed: this database was migrated by the pre-release chain .*run `npm run migrate -- --adopt-pre-release` once/);
  assert.not.match(refused.stderr, /\bat .*\.js:\d+/, 'no stack trace');
  const adopted = await run(['--adopt-pre-release']);
  assert.is(adopted.code, 0, adopted.stderr);
  assert.is(adopted.stderr.split('\n').filter((line) => line && !line.startsWith('{')).length, 0, adopted.stderr);
});

test.run();
