// Databases of the migrations before the first release (src/db/pre-release-chain.ts):
// one of the whole second chain (sql/001..007 and sql/100..283, since folded into
// sql/001..009) is carried over at start, nothing re-run and its rows kept; one of
// part of it, or of the first chain (sql/001_init..071), is refused before anything
// is applied, with one line saying what to do. The old files come from git, as
// scripts/check-folded-schema.ts takes them.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/lib/log.js';
import { migrate, readMigrations, type Migration } from '../../src/db/migrate.js';
import type { Sql } from '../../src/db/pool.js';
import { checkChain, FIRST_CHAIN, FOLDED_CHAIN, MigrationChainError, SECOND_CHAIN } from '../../src/db/pre-release-chain.js';
import { FIRST_APPENDED, preReleaseCommit, preReleaseMigrations } from '../../scripts/folded-schema/compare.js';
import { gitHistoryMissing, needingGitHistory } from '../helpers/git-history.js';

const serverUrl = (name: string) => {
  const url = new URL(process.env.TEST_DB_URL!);
  url.pathname = '/' + name;
  return url.href;
};
const admin = postgres(serverUrl('postgres'), { max: 1, onnotice: () => {} });
// Empty where there is no git history: the tests that read them are skipped then.
const fromGit = gitHistoryMissing() === null;
const secondChain = fromGit ? preReleaseMigrations(preReleaseCommit()) : [];
const firstChain = fromGit ? preReleaseMigrations(preReleaseCommit('sql/071_plugin_search_sync_cheap_updates.sql'), 100) : [];
const withChains = needingGitHistory(test, 'the tests of databases migrated by the pre-release chains, which only git history holds');
const current = readMigrations();
const appended = current.filter((m) => m.version >= FIRST_APPENDED);
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
const bumpFunctions = async (sql: Sql) =>
  (await sql<{ name: string }[]>`select proname as name from pg_proc where pronamespace = 'public'::regnamespace and proname like '%bump%' order by 1`).map((row) => row.name);

/** Expects `run` to be refused with a MigrationChainError matching `message`, on one line. */
async function refused(run: () => Promise<unknown>, message: RegExp): Promise<void> {
  try {
    await run();
    assert.unreachable('migrated');
  } catch (error) {
    assert.instance(error, MigrationChainError);
    assert.not.match((error as Error).message, /\n/);
    assert.match((error as Error).message, message);
  }
}

test.after(async () => {
  for (const name of made) await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
  await admin.end();
});

withChains('the chains taken from git are the ones this code knows, and the folded files come before every appended one', () => {
  assert.equal(firstChain.map((m) => [m.version, m.name]), FIRST_CHAIN.map(([version, name]) => [version, name]));
  assert.equal(secondChain.map((m) => [m.version, m.name]), SECOND_CHAIN.map(([version, name]) => [version, name]));
  assert.equal(current.filter((m) => m.version < FIRST_APPENDED).map((m) => [m.version, m.name]), FOLDED_CHAIN.map(([version, name]) => [version, name]));
  assert.ok(FIRST_APPENDED > SECOND_CHAIN.at(-1)![0], 'no appended migration reuses a number of the second chain');
});

withChains('a database of the whole second chain is carried over: its rows kept, nothing re-run, the folded files recorded, what was appended applied', async () => {
  const { sql } = await databaseMigratedBy(secondChain);
  try {
    const [{ id }] = await sql<{ id: string }[]>`insert into users (username) values ('carried') returning id::text as id`;
    await sql`insert into plugins (id, submitter_id, name, version, download, status)
              values ('carried.plugin', ${id}, 'Carried', '1.0', 'https://example.com/p.zip', 'approved')`;
    assert.equal(await bumpFunctions(sql), ['session_bump_generation', 'store_bump_generation', 'store_bump_ratings', 'store_bump_visibility']);
    assert.is(await migrate(sql, silentLogger, current), appended.length);
    assert.equal(await recorded(sql), current.map((m) => `${m.version} ${m.name}`));
    const checksums = await sql<{ checksum: string }[]>`select checksum from schema_migrations order by version`;
    assert.equal(checksums.map((row) => row.checksum), current.map((m) => m.checksum));
    assert.equal(await bumpFunctions(sql), ['bump_generation']);
    const [plugin] = await sql<{ name: string }[]>`select name from plugins where id = 'carried.plugin'`;
    assert.is(plugin?.name, 'Carried');
    // The one function moves every number as the four did, once a transaction.
    const before = (await sql<{ generation: string; visibility: string; ratings: string }[]>`select generation::text, visibility::text, ratings::text from store_generation`)[0]!;
    await sql.begin(async (tx) => {
      await tx`update plugins set status = 'rejected' where id = 'carried.plugin'`;
      await tx`insert into plugin_ratings (plugin_id, user_id, stars) values ('carried.plugin', ${id}, 4)`;
    });
    const after = (await sql<typeof before[]>`select generation::text, visibility::text, ratings::text from store_generation`)[0]!;
    assert.equal([after.generation, after.visibility, after.ratings].map(Number), [before.generation, before.visibility, before.ratings].map((n) => Number(n) + 1));
    // From then on it is an ordinary database of the folded files.
    assert.is(await migrate(sql, silentLogger, current), 0);
  } finally {
    await sql.end();
  }
});

withChains('the carry-over is all or nothing: a later trigger calling an old bump function makes it fail and change nothing', async () => {
  const { sql } = await databaseMigratedBy(secondChain);
  try {
    await sql`create constraint trigger rating_notices_bump_generation after insert on rating_notices
              deferrable initially deferred for each row execute function store_bump_generation()`;
    const before = { recorded: await recorded(sql), functions: await bumpFunctions(sql) };
    try {
      await migrate(sql, silentLogger, current);
      assert.unreachable('carried over');
    } catch (error) {
      assert.match((error as Error).message, /^carrying the second pre-release chain over to the folded files failed \(nothing was changed\): .*store_bump_generation/);
    }
    assert.equal(await recorded(sql), before.recorded);
    assert.equal(await bumpFunctions(sql), before.functions);
  } finally {
    await sql.end();
  }
});

withChains('a database of part of the second chain is refused before anything is applied, and told to finish it with the code before the fold', async () => {
  const partial = secondChain.filter((m) => m.version <= 240);
  const { sql } = await databaseMigratedBy(partial);
  try {
    const before = { recorded: await recorded(sql), tables: await tables(sql) };
    await refused(() => migrate(sql, silentLogger, current), new RegExp(
      `^this database was migrated by part of the second pre-release chain \\(up to sql/240_visibility_generation\\.sql, ${partial.length} of ${SECOND_CHAIN.length} files\\), since folded into sql/001\\.\\.009: nothing was applied; migrate it first with a checkout of the commit before the fold \\(the parent of \`git rev-list -1 HEAD -- sql/283_removed_packages\\.sql\`: \`npm run migrate\` there\\), then start this version; or dump your data`));
    assert.equal(await recorded(sql), before.recorded);
    assert.equal(await tables(sql), before.tables);
  } finally {
    await sql.end();
  }
});

withChains('a database of the first chain is refused before anything is applied, and told to adopt it with the code before the fold', async () => {
  const { sql } = await databaseMigratedBy(firstChain);
  try {
    const before = { recorded: await recorded(sql), tables: await tables(sql) };
    await refused(() => migrate(sql, silentLogger, current),
      /^this database was migrated by the first pre-release chain, sql\/001_init\.sql\.\.sql\/071_plugin_search_sync_cheap_updates\.sql, since folded twice into sql\/001\.\.009: nothing was applied; migrate it first with a checkout of the commit before the fold .*`npm run migrate -- --adopt-pre-release` there/);
    assert.equal(await recorded(sql), before.recorded);
    assert.equal(await tables(sql), before.tables);
  } finally {
    await sql.end();
  }
});

const rows = (chain: ReadonlyArray<readonly [number, string]>) => chain.map(([version, name]) => ({ version, name }));
const cases: Array<{ what: string; applied: Array<{ version: number; name: string }>; expect: 'current' | 'carry-over' | RegExp }> = [
  { what: 'the folded files themselves', applied: rows(FOLDED_CHAIN), expect: 'current' },
  { what: 'nothing yet', applied: [], expect: 'current' },
  { what: 'an appended migration of another branch', applied: [{ version: 1, name: 'users' }, { version: 905, name: 'elsewhere' }], expect: 'current' },
  { what: 'the whole second chain', applied: rows(SECOND_CHAIN), expect: 'carry-over' },
  { what: 'the whole second chain and a migration appended after it', applied: [...rows(SECOND_CHAIN), { version: FIRST_APPENDED, name: 'later' }], expect: 'carry-over' },
  { what: 'the second chain without one file in the middle', applied: rows(SECOND_CHAIN).filter((row) => row.version !== 231), expect: /^this database was migrated by part of the second pre-release chain \(up to sql\/283_removed_packages\.sql, 20 of 21 files\)/ },
  { what: 'the second chain\'s seven files before anything was appended', applied: rows(SECOND_CHAIN).filter((row) => row.version < 100), expect: /^this database was migrated by part of the second pre-release chain \(up to sql\/007_store_generation\.sql, 7 of 21 files\)/ },
  { what: 'part of the first chain', applied: rows(FIRST_CHAIN).slice(0, 5), expect: /^this database was migrated by part of the first pre-release chain \(5 of 28 files\), sql\/001_init\.sql\.\.sql\/011_plugin_ratings\.sql/ },
  { what: 'another file under a folded number', applied: [{ version: 2, name: 'not_plugins' }], expect: /^schema_migrations records version 2 as "not_plugins" but sql\/ holds sql\/002_plugins\.sql: .*nothing was applied/ },
];

for (const { what, applied, expect } of cases) {
  test(`checkChain: ${what}`, () => {
    if (expect instanceof RegExp) {
      assert.throws(() => checkChain(applied, current), (error: Error) => error instanceof MigrationChainError && expect.test(error.message));
      return;
    }
    const check = checkChain(applied, current);
    assert.is(check.kind, expect);
    if (check.kind === 'carry-over') {
      assert.equal(check.replaced, SECOND_CHAIN.map(([version]) => version));
      assert.equal(check.folded.map((m) => m.name), FOLDED_CHAIN.map(([, name]) => name));
      assert.equal(check.runs.map((m) => m.name), ['generation_bumps']);
    }
  });
}

withChains('npm run migrate: a database of part of the second chain exits 1 with one line saying what to do; the whole chain exits 0, carried over', async () => {
  const entry = fileURLToPath(new URL('../../src/migrate.js', import.meta.url));
  const run = (url: string) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [entry], { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'error' }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('close', (code) => resolve({ code, stderr }));
    });
  const partial = await databaseMigratedBy(secondChain.filter((m) => m.version <= 150));
  const whole = await databaseMigratedBy(secondChain);
  await Promise.all([partial.sql.end(), whole.sql.end()]);
  const plainLines = (stderr: string) => stderr.split('\n').filter((line) => line && !line.startsWith('{'));
  const refusedRun = await run(partial.url);
  assert.is(refusedRun.code, 1, refusedRun.stderr);
  assert.is(plainLines(refusedRun.stderr).length, 1, refusedRun.stderr);
  assert.match(plainLines(refusedRun.stderr)[0]!, /^migration failed: this database was migrated by part of the second pre-release chain .*`npm run migrate` there/);
  assert.not.match(refusedRun.stderr, /\bat .*\.js:\d+/, 'no stack trace');
  const carried = await run(whole.url);
  assert.is(carried.code, 0, carried.stderr);
  assert.is(plainLines(carried.stderr).length, 0, carried.stderr);
});

test.run();
