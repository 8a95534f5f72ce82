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

// Migrates one database with the second pre-release chain (sql/001_users..007 and
// sql/100..283, read from git at the commit before the fold), then with the
// working tree's files as a deployed database meets them: the carry-over
// (src/db/pre-release-chain.ts) and the migrations appended after 283. Another
// database gets the working tree's files alone, the folded ones (sql/001..009) and
// the same appended ones. Both are then described (pg_dump --schema-only and
// --data-only where a pg_dump of the server's major version or newer is at hand,
// and always the catalogue: every relation, column in order, constraint, index,
// function, trigger, view, domain, sequence, extension and privilege, and each
// table's rows) and their schema_migrations compared. Only the order of objects is
// normalised; column order is not. Before the carry-over (and before anything
// appended), the catalogues may differ only in the generation bumps: that is all
// the carry-over changes.

/** Migrations numbered from here on are appended after the fold, on both sides. */
export const FIRST_APPENDED = 284;
/** The last file of the second pre-release chain: the commit before its removal has the whole chain. */
const LAST_OLD_FILE = 'sql/283_removed_packages.sql';
/** The four functions of the second chain that bumped a generation, and the number each bumped. */
const OLD_BUMPS: Record<string, string> = {
  store_bump_generation: 'store',
  store_bump_visibility: 'visibility',
  store_bump_ratings: 'ratings',
  session_bump_generation: 'sessions',
};
const OLD_BUMP_CALL = new RegExp(`(^trigger .* EXECUTE FUNCTION )(${Object.keys(OLD_BUMPS).join('|')})\\(\\)( enabled=\\w+)$`, 's');
const BUMP_FUNCTION = new RegExp(`^function CREATE OR REPLACE FUNCTION public\\.(${[...Object.keys(OLD_BUMPS), 'bump_generation'].join('|')})\\(\\)`);

/**
 * A catalogue line of the second chain as the carry-over leaves it: a trigger that
 * called an old bump function calls bump_generation with that function's number,
 * and nothing else about it changes.
 */
function carriedOver(line: string): string {
  return line.replace(OLD_BUMP_CALL, (_, head: string, name: string, tail: string) => `${head}bump_generation('${OLD_BUMPS[name]}')${tail}`);
}

export interface Comparison {
  oldCommit: string;
  oldFiles: number;
  foldedFiles: number;
  appendedFiles: number;
  serverVersion: string;
  /** null when no pg_dump fits the server (e.g. the embedded PostgreSQL ships none). */
  pgDump: { version: string; schemaObjects: number; dataLines: number; schemaDiff: string; dataDiff: string } | null;
  catalog: { entries: number; diff: string };
  /** schema_migrations (version, name, checksum) of both, as a diff; '' when the same. */
  recorded: { rows: number; diff: string };
  /**
   * The two chains alone, before the carry-over: the triggers that call an old bump
   * function (`rewritten`), and the lines that still differ once those calls name
   * bump_generation and its number instead, but for the bump functions themselves:
   * must be none.
   */
  beforeCarryOver: { rewritten: number; functions: { old: number; folded: number }; unexpected: string[] };
  identical: boolean;
}

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: projectRoot(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The newest commit that still holds `lastFile`: by default, the whole second pre-release chain. */
export function preReleaseCommit(lastFile = LAST_OLD_FILE): string {
  const last = git(['rev-list', '-1', 'HEAD', '--', lastFile]).trim();
  if (!last) throw new Error(`no commit holds ${lastFile}: this checkout has no history of the pre-release chain`);
  try {
    git(['cat-file', '-e', `${last}:${lastFile}`]);
    return last;
  } catch {
    return git(['rev-parse', `${last}^`]).trim();
  }
}

/** The migration files at `commit` numbered below `below`: the second pre-release chain by default. */
export function preReleaseMigrations(commit: string, below = FIRST_APPENDED): Migration[] {
  const dir = mkdtempSync(join(tmpdir(), 'lw-old-chain-'));
  try {
    for (const path of git(['ls-tree', '--name-only', commit, 'sql/']).split('\n')) {
      const match = /^sql\/(\d{3})_[a-z0-9_]+\.sql$/.exec(path);
      if (match && Number(match[1]) < below) writeFileSync(join(dir, path.slice(4)), git(['show', `${commit}:${path}`]));
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
    // First `before` alone (described), then all of `current` on top.
    const migrateTwice = async (url: string, before: Migration[]) => {
      const sql = postgres(url, { max: 1, onnotice: () => {} }) as unknown as Sql;
      try {
        await migrate(sql, silentLogger, before);
        const beforeCatalog = await catalogDescription(sql);
        await migrate(sql, silentLogger, current);
        const recorded = (await sql<{ version: number; name: string; checksum: string }[]>`
          select version, name, checksum from schema_migrations order by version`).map((row) => `${row.version} ${row.name} ${row.checksum}`);
        return { beforeCatalog, catalog: await catalogDescription(sql), recorded };
      } finally {
        await sql.end();
      }
    };
    const oldSide = await migrateTwice(urls.old, old);
    const foldedSide = await migrateTwice(urls.folded, folded);
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
    const catalog = { entries: foldedSide.catalog.length, diff: diffOf(oldSide.catalog, foldedSide.catalog) };
    const recorded = { rows: foldedSide.recorded.length, diff: diffOf(oldSide.recorded, foldedSide.recorded) };
    const rewrittenOld = oldSide.beforeCatalog.map(carriedOver);
    const oldLines = new Set(rewrittenOld);
    const foldedLines = new Set(foldedSide.beforeCatalog);
    const onlyOld = rewrittenOld.filter((line) => !foldedLines.has(line));
    const onlyFolded = foldedSide.beforeCatalog.filter((line) => !oldLines.has(line));
    const beforeCarryOver = {
      rewritten: rewrittenOld.filter((line, i) => line !== oldSide.beforeCatalog[i]).length,
      functions: { old: onlyOld.filter((line) => BUMP_FUNCTION.test(line)).length, folded: onlyFolded.filter((line) => BUMP_FUNCTION.test(line)).length },
      unexpected: [...onlyOld.map((line) => `- ${line}`), ...onlyFolded.map((line) => `+ ${line}`)].filter((line) => !BUMP_FUNCTION.test(line.slice(2))),
    };
    return {
      oldCommit,
      oldFiles: old.length,
      foldedFiles: folded.length,
      appendedFiles: appended.length,
      serverVersion: serverVersion!,
      pgDump: dumps,
      catalog,
      recorded,
      beforeCarryOver,
      identical: catalog.diff === '' && recorded.diff === '' && beforeCarryOver.unexpected.length === 0
        && (!dumps || (dumps.schemaDiff === '' && dumps.dataDiff === '')),
    };
  } finally {
    for (const name of Object.values(names)) await admin.unsafe(`drop database if exists ${name}`).catch(() => {});
    await admin.end();
  }
}
