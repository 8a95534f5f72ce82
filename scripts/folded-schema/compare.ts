import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { silentLogger } from '../../src/lib/log.js';
import { projectRoot } from '../../src/lib/project-root.js';
import { migrate, readMigrations, type Migration } from '../../src/db/migrate.js';
import type { Sql } from '../../src/db/pool.js';
import { catalogDescription } from './catalog.js';

// Migrates one database with the pre-release chain (sql/001_init..071, read from git
// at the commit before the fold) and one with the folded files of the working tree,
// each followed by the working tree's appended migrations (numbered 100 and up, the
// same files on both sides), then describes both (pg_dump --schema-only and
// --data-only where a pg_dump of the server's major version or newer is at hand,
// and always the catalogue: every relation, column in order, constraint, index,
// function, trigger, view, domain, sequence, extension and privilege, and each
// table's rows). Only the order of objects is normalised; column order is not.

/** Migrations numbered from here on are appended after the fold, on both sides. */
const FIRST_APPENDED = 100;
/** The last file of the pre-release chain: the commit before its removal has the whole chain. */
const LAST_OLD_FILE = 'sql/071_plugin_search_sync_cheap_updates.sql';

export interface Comparison {
  oldCommit: string;
  oldFiles: number;
  foldedFiles: number;
  appendedFiles: number;
  serverVersion: string;
  /** null when no pg_dump fits the server (e.g. the embedded PostgreSQL ships none). */
  pgDump: { version: string; schemaObjects: number; dataLines: number; schemaDiff: string; dataDiff: string } | null;
  catalog: { entries: number; diff: string };
  identical: boolean;
}

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: projectRoot(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The newest commit that still holds the whole pre-release chain. */
export function preReleaseCommit(): string {
  const last = git(['rev-list', '-1', 'HEAD', '--', LAST_OLD_FILE]).trim();
  if (!last) throw new Error(`no commit holds ${LAST_OLD_FILE}: this checkout has no history of the pre-release chain`);
  try {
    git(['cat-file', '-e', `${last}:${LAST_OLD_FILE}`]);
    return last;
  } catch {
    return git(['rev-parse', `${last}^`]).trim();
  }
}

/** The pre-release chain at `commit` (files numbered below 100). */
export function preReleaseMigrations(commit: string): Migration[] {
  const dir = mkdtempSync(join(tmpdir(), 'lw-old-chain-'));
  try {
    for (const path of git(['ls-tree', '--name-only', commit, 'sql/']).split('\n')) {
      const match = /^sql\/(\d{3})_[a-z0-9_]+\.sql$/.exec(path);
      if (match && Number(match[1]) < FIRST_APPENDED) writeFileSync(join(dir, path.slice(4)), git(['show', `${commit}:${path}`]));
    }
    return readMigrations(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = '/' + name;
  return url.href;
}

/** A pg_dump whose major version is at least the server's, or null. */
function fittingPgDump(candidates: string[], serverMajor: number): { path: string; version: string } | null {
  for (const path of candidates) {
    if (!existsSync(path)) continue;
    const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim().replace(/^pg_dump \(PostgreSQL\) /, '');
    if (Number.parseInt(version, 10) >= serverMajor) return { path, version };
  }
  return null;
}

/**
 * pg_dump's text, its objects in name order: the output is cut at each object's
 * "-- Name: ...; Type: ..." header and the pieces sorted. Session settings, the
 * random \restrict key and the version banner are dropped.
 */
export function normalizeDump(text: string): string[] {
  const lines = text.split('\n').filter((line) =>
    !/^(SET |SELECT pg_catalog\.set_config|\\restrict |\\unrestrict |-- Dumped (from|by) )/.test(line));
  const objects: string[] = [];
  let current: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] === '--' && /^-- (Data for )?Name: /.test(lines[i + 1] ?? '') && lines[i + 2] === '--') {
      objects.push(current.join('\n').trim());
      current = [lines[i + 1]!.replace(/; Owner: .*$/, '')];
      i += 2;
      continue;
    }
    current.push(lines[i]!);
  }
  objects.push(current.join('\n').trim());
  return objects.filter((object) => object !== '' && !/^(--\n)*-- PostgreSQL database dump( complete)?(\n--)*$/.test(object)).sort();
}

/** Data lines (INSERT statements) in order, for the rows the migrations put in. */
function normalizeData(text: string): string[] {
  return text.split('\n').filter((line) => line.startsWith('INSERT ')).sort();
}

function diffOf(before: string[], after: string[]): string {
  if (before.join('\n') === after.join('\n')) return '';
  const dir = mkdtempSync(join(tmpdir(), 'lw-fold-diff-'));
  try {
    writeFileSync(join(dir, 'old-chain'), before.join('\n\n') + '\n');
    writeFileSync(join(dir, 'folded'), after.join('\n\n') + '\n');
    try {
      execFileSync('diff', ['-u', 'old-chain', 'folded'], { cwd: dir, encoding: 'utf8' });
      return '';
    } catch (error) {
      return String((error as { stdout?: string }).stdout ?? error);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface CompareOptions {
  /** A server on which two scratch databases may be created and dropped. */
  serverUrl: string;
  oldCommit?: string;
  /** pg_dump programs to try, first fitting one wins. */
  pgDumps?: string[];
  /** The folded and appended migrations; defaults to the working tree's sql/. */
  migrations?: Migration[];
}

export async function compareChains(options: CompareOptions): Promise<Comparison> {
  const oldCommit = options.oldCommit ?? preReleaseCommit();
  const current = options.migrations ?? readMigrations();
  const appended = current.filter((migration) => migration.version >= FIRST_APPENDED);
  const folded = current.filter((migration) => migration.version < FIRST_APPENDED);
  const old = preReleaseMigrations(oldCommit);
  const admin = postgres(options.serverUrl, { max: 1, onnotice: () => {} });
  const names = { old: `fold_check_old_${process.pid}`, folded: `fold_check_new_${process.pid}` };
  const urls = { old: withDatabase(options.serverUrl, names.old), folded: withDatabase(options.serverUrl, names.folded) };
  try {
    for (const name of Object.values(names)) {
      await admin.unsafe(`drop database if exists ${name}`);
      await admin.unsafe(`create database ${name}`);
    }
    const describe = async (url: string, migrations: Migration[]) => {
      const sql = postgres(url, { max: 1, onnotice: () => {} }) as unknown as Sql;
      try {
        await migrate(sql, silentLogger, migrations);
        return await catalogDescription(sql);
      } finally {
        await sql.end();
      }
    };
    const oldCatalog = await describe(urls.old, [...old, ...appended]);
    const foldedCatalog = await describe(urls.folded, [...folded, ...appended]);
    const [{ server_version: serverVersion, major }] = await admin<{ server_version: string; major: number }[]>`
      select current_setting('server_version') as server_version, current_setting('server_version_num')::int / 10000 as major`;
    const pgDump = fittingPgDump(options.pgDumps ?? [], major!);
    let dumps: Comparison['pgDump'] = null;
    if (pgDump) {
      const dump = (url: string, args: string[]) => execFileSync(pgDump.path, [...args, '--no-owner', url], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      const schema = { old: normalizeDump(dump(urls.old, ['--schema-only'])), folded: normalizeDump(dump(urls.folded, ['--schema-only'])) };
      const dataArgs = ['--data-only', '--inserts', '--exclude-table=public.schema_migrations'];
      const data = { old: normalizeData(dump(urls.old, dataArgs)), folded: normalizeData(dump(urls.folded, dataArgs)) };
      dumps = {
        version: pgDump.version,
        schemaObjects: schema.folded.length,
        dataLines: data.folded.length,
        schemaDiff: diffOf(schema.old, schema.folded),
        dataDiff: diffOf(data.old, data.folded),
      };
    }
    const catalog = { entries: foldedCatalog.length, diff: diffOf(oldCatalog, foldedCatalog) };
    return {
      oldCommit,
      oldFiles: old.length,
      foldedFiles: folded.length,
      appendedFiles: appended.length,
      serverVersion: serverVersion!,
      pgDump: dumps,
      catalog,
      identical: catalog.diff === '' && (!dumps || (dumps.schemaDiff === '' && dumps.dataDiff === '')),
    };
  } finally {
    for (const name of Object.values(names)) await admin.unsafe(`drop database if exists ${name}`).catch(() => {});
    await admin.end();
  }
}
