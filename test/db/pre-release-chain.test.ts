// Databases of the migrations before the first release (src/db/pre-release-chain.ts):
// one of the whole second chain (sql/001..007 and sql/100..283), or of the
// pre-release fold (sql/001..009 as they were, with any of the files appended to it,
// 284..287), is carried over at start to the released sql/001..009, its rows kept;
// one of part of either, or of the first chain (sql/001_init..071), is refused
// before anything is applied, with one line saying what to do. The old files come
// from git, as scripts/check-folded-schema.ts takes them.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/lib/log.js';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import type { Migration } from '../../src/db/migration.js';
import type { Sql } from '../../src/db/pool.js';
import { projectRoot } from '../../src/lib/project-root.js';
import {
  APPENDED_TO_FOLD, checkChain, FIRST_CHAIN, LAST_PRE_RELEASE_NUMBER, MigrationChainError, PRE_RELEASE_FOLD, RELEASED_FILES, SECOND_CHAIN,
} from '../../src/db/pre-release-chain.js';
import { checksumsInHistory, preReleaseCommit, preReleaseFoldStart, preReleaseFoldCommit, preReleaseMigrations } from '../../scripts/folded-schema/compare.js';
import { catalogDescription } from '../../scripts/folded-schema/catalog.js';
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
// The pre-release fold and the four files appended to it, as the last of them ran;
// and as they were before 286's triggers were renamed (dd16c8a), which some ran.
const foldCommit = fromGit ? preReleaseFoldCommit() : '';
const fold = fromGit ? preReleaseMigrations(foldCommit, LAST_PRE_RELEASE_NUMBER + 1) : [];
const foldAlone = fold.filter((m) => m.version < APPENDED_TO_FOLD[0]![0]);
const foldWithFirst286 = fromGit ? preReleaseMigrations('dd16c8a^', LAST_PRE_RELEASE_NUMBER + 1) : [];
const withChains = needingGitHistory(test, 'the tests of databases migrated by the pre-release chains, which only git history holds');
const current = readMigrations();
const appended = current.filter((m) => m.version > LAST_PRE_RELEASE_NUMBER);
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

withChains('the chains taken from git are the ones this code knows, and sql/carry-over keeps the appended files as they last ran', () => {
  assert.equal(firstChain.map((m) => [m.version, m.name]), FIRST_CHAIN.map(([version, name]) => [version, name]));
  assert.equal(secondChain.map((m) => [m.version, m.name]), SECOND_CHAIN.map(([version, name]) => [version, name]));
  assert.equal(foldAlone.map((m) => [m.version, m.name]), PRE_RELEASE_FOLD.map(([version, name]) => [version, name]));
  // Every text each file of the pre-release fold had, from the fold to the last commit before the release fold.
  for (const [version, name, checksums] of PRE_RELEASE_FOLD) {
    const path = `sql/${String(version).padStart(3, '0')}_${name}.sql`;
    assert.equal([...checksums].sort(), checksumsInHistory(path, preReleaseFoldStart(), foldCommit).sort(), path);
  }
  assert.equal(fold.filter((m) => !foldAlone.includes(m)).map((m) => [m.version, m.name]), APPENDED_TO_FOLD.map(([version, name]) => [version, name]));
  for (const m of fold.filter((m) => !foldAlone.includes(m))) {
    const file = `${String(m.version).padStart(3, '0')}_${m.name}.sql`;
    assert.is(readFileSync(join(projectRoot(), 'sql', 'carry-over', file), 'utf8'), m.text, `sql/carry-over/${file}`);
  }
  assert.ok(foldWithFirst286.find((m) => m.version === 286)!.text.includes('create constraint trigger plugins_package_check'), 'the first text of 286');
  assert.equal(current.filter((m) => m.version <= LAST_PRE_RELEASE_NUMBER).map((m) => [m.version, m.name]), RELEASED_FILES.map(([version, name]) => [version, name]));
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
    // The files appended to the pre-release fold ran too: 286 gave the plugin's outside link its first check.
    const [check] = await sql<{ status: string }[]>`select status from plugin_package_checks where plugin_id = 'carried.plugin'`;
    assert.is(check?.status, 'pending');
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

withChains('a database of the pre-release fold and the four files appended to it is carried over: its rows kept, nothing re-run, the released files recorded', async () => {
  const { sql } = await databaseMigratedBy(fold);
  try {
    const [{ id }] = await sql<{ id: string }[]>`insert into users (username) values ('folded') returning id::text as id`;
    await sql`insert into plugins (id, submitter_id, name, version, download, status)
              values ('folded.plugin', ${id}, 'Folded', '1.0', 'https://example.com/f.zip', 'approved')`;
    await sql`update plugin_package_checks set status = 'unreachable', due_at = null where plugin_id = 'folded.plugin'`;
    assert.is(await migrate(sql, silentLogger, current), appended.length);
    assert.equal(await recorded(sql), current.map((m) => `${m.version} ${m.name}`));
    const checksums = await sql<{ checksum: string }[]>`select checksum from schema_migrations order by version`;
    assert.equal(checksums.map((row) => row.checksum), current.map((m) => m.checksum));
    const [plugin] = await sql<{ name: string; status: string }[]>`
      select p.name, c.status from plugins p join plugin_package_checks c on c.plugin_id = p.id where p.id = 'folded.plugin'`;
    assert.equal(plugin, { name: 'Folded', status: 'unreachable' });
    assert.is(await migrate(sql, silentLogger, current), 0);
  } finally {
    await sql.end();
  }
});

withChains('every kind of pre-release database gets, carried over, the schema and schema_migrations of a new one', async () => {
  const kinds: Array<{ what: string; migrations: Migration[] }> = [
    { what: 'the second chain with 284 and 285, as the code before the pre-release fold left it', migrations: fromGit ? preReleaseMigrations(preReleaseCommit(), 286) : [] },
    { what: 'the pre-release fold with 284 and 285 only', migrations: fold.filter((m) => m.version <= 285) },
    { what: 'the pre-release fold and the first text of 286, its triggers named *_package_check', migrations: foldWithFirst286 },
  ];
  const made = await databaseMigratedBy(current);
  const expected = { catalog: await catalogDescription(made.sql), recorded: await recorded(made.sql) };
  await made.sql.end();
  for (const { what, migrations } of kinds) {
    const { sql } = await databaseMigratedBy(migrations);
    try {
      assert.is(await migrate(sql, silentLogger, current), appended.length, what);
      const catalog = await catalogDescription(sql);
      assert.equal(catalog.filter((line) => !expected.catalog.includes(line)), [], `${what}: lines a new database lacks`);
      assert.equal(expected.catalog.filter((line) => !catalog.includes(line)), [], `${what}: lines it lacks`);
      assert.equal(await recorded(sql), expected.recorded, what);
    } finally {
      await sql.end();
    }
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
      assert.match((error as Error).message, /^carrying the second pre-release chain over to the released files failed \(nothing was changed\): .*store_bump_generation/);
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
      /^this database was migrated by the first pre-release chain, sql\/001_init\.sql\.\.sql\/071_plugin_search_sync_cheap_updates\.sql, since folded three times into sql\/001\.\.009: nothing was applied; migrate it first with a checkout of the commit before the fold .*`npm run migrate -- --adopt-pre-release` there/);
    assert.equal(await recorded(sql), before.recorded);
    assert.equal(await tables(sql), before.tables);
  } finally {
    await sql.end();
  }
});

const rows = (chain: ReadonlyArray<readonly [number, string, ...unknown[]]>) => chain.map(([version, name]) => ({ version, name }));
const foldRows = PRE_RELEASE_FOLD.map(([version, name, checksums]) => ({ version, name, checksum: checksums[0] }));
const versions = (chain: ReadonlyArray<readonly [number, ...unknown[]]>) => chain.map(([version]) => version);
const appendedFiles = ['284_version_manifests.sql', '285_launcher_reads.sql', '286_package_checks.sql', '287_live_entry_kind.sql'];
type Expected = 'current' | RegExp | { from: 'second chain' | 'pre-release fold'; replaced: number[]; steps: string[] };
const cases: Array<{ what: string; applied: Array<{ version: number; name: string; checksum?: string }>; expect: Expected }> = [
  { what: 'the released files themselves', applied: current.map(({ version, name, checksum }) => ({ version, name, checksum })), expect: 'current' },
  { what: 'nothing yet', applied: [], expect: 'current' },
  { what: 'an appended migration of another branch', applied: [{ version: 1, name: 'users' }, { version: 905, name: 'elsewhere' }], expect: 'current' },
  {
    what: 'the whole second chain: the appended files all run, between the old bumps\' end and sql/009',
    applied: rows(SECOND_CHAIN),
    expect: { from: 'second chain', replaced: versions(SECOND_CHAIN), steps: ['old-generation-bumps.sql', ...appendedFiles, 'stand-in-bump.sql', 'sql/009'] },
  },
  {
    what: 'the whole second chain with 284 and 285, as the code before the pre-release fold left it: only 286 and 287 run',
    applied: [...rows(SECOND_CHAIN), ...rows(APPENDED_TO_FOLD).slice(0, 2)],
    expect: { from: 'second chain', replaced: [...versions(SECOND_CHAIN), 284, 285], steps: ['old-generation-bumps.sql', ...appendedFiles.slice(2), 'stand-in-bump.sql', 'sql/009'] },
  },
  {
    what: 'the whole second chain and a migration appended after the release: that row stays',
    applied: [...rows(SECOND_CHAIN), { version: LAST_PRE_RELEASE_NUMBER + 1, name: 'later' }],
    expect: { from: 'second chain', replaced: versions(SECOND_CHAIN), steps: ['old-generation-bumps.sql', ...appendedFiles, 'stand-in-bump.sql', 'sql/009'] },
  },
  {
    what: 'the pre-release fold and the four files appended to it: nothing runs but the trigger names',
    applied: [...foldRows, ...rows(APPENDED_TO_FOLD)],
    expect: { from: 'pre-release fold', replaced: [...versions(PRE_RELEASE_FOLD), ...versions(APPENDED_TO_FOLD)], steps: ['package-check-trigger-names.sql'] },
  },
  {
    what: 'the pre-release fold with 284 and 285: 286 and 287 run',
    applied: [...foldRows, ...rows(APPENDED_TO_FOLD).slice(0, 2)],
    expect: { from: 'pre-release fold', replaced: [...versions(PRE_RELEASE_FOLD), 284, 285], steps: [...appendedFiles.slice(2), 'package-check-trigger-names.sql'] },
  },
  {
    what: 'the pre-release fold alone, told from the released files by its checksums',
    applied: foldRows,
    expect: { from: 'pre-release fold', replaced: versions(PRE_RELEASE_FOLD), steps: [...appendedFiles, 'package-check-trigger-names.sql'] },
  },
  { what: 'part of the pre-release fold', applied: foldRows.slice(0, 5), expect: /^this database was migrated by part of the pre-release fold \(up to sql\/005_related\.sql, 5 of 9 files\), since folded with 4 files appended to it into the released sql\/001\.\.009: nothing was applied; migrate it first with a checkout of the commit before the fold \(the parent of `git rev-list -1 HEAD -- sql\/287_live_entry_kind\.sql`: `npm run migrate` there\)/ },
  { what: 'the second chain without one file in the middle', applied: rows(SECOND_CHAIN).filter((row) => row.version !== 231), expect: /^this database was migrated by part of the second pre-release chain \(up to sql\/283_removed_packages\.sql, 20 of 21 files\)/ },
  { what: 'the second chain\'s seven files before anything was appended', applied: rows(SECOND_CHAIN).filter((row) => row.version < 100), expect: /^this database was migrated by part of the second pre-release chain \(up to sql\/007_store_generation\.sql, 7 of 21 files\)/ },
  { what: 'part of the first chain', applied: rows(FIRST_CHAIN).slice(0, 5), expect: /^this database was migrated by part of the first pre-release chain \(5 of 28 files\), sql\/001_init\.sql\.\.sql\/011_plugin_ratings\.sql/ },
  { what: 'another file under a released number', applied: [{ version: 2, name: 'not_plugins' }], expect: /^schema_migrations records version 2 as "not_plugins" but sql\/ holds sql\/002_plugins\.sql: .*nothing was applied/ },
];

for (const { what, applied, expect } of cases) {
  test(`checkChain: ${what}`, () => {
    if (expect instanceof RegExp) {
      assert.throws(() => checkChain(applied, current), (error: Error) => error instanceof MigrationChainError && expect.test(error.message));
      return;
    }
    const check = checkChain(applied, current);
    if (expect === 'current') {
      assert.is(check.kind, 'current');
      return;
    }
    assert.is(check.kind, 'carry-over');
    if (check.kind !== 'carry-over') return;
    assert.equal({
      from: check.from,
      replaced: check.replaced,
      steps: check.steps.map((step) => ('carryOver' in step ? step.carryOver : `sql/${String(step.migration.version).padStart(3, '0')}`)),
    }, expect);
    assert.equal(check.released.map((m) => [m.version, m.name]), RELEASED_FILES.map(([version, name]) => [version, name]));
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
