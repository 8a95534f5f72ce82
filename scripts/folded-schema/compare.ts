import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { silentLogger } from '../../src/lib/log.js';
import { projectRoot } from '../../src/lib/project-root.js';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import type { Migration } from '../../src/db/migration.js';
import type { Sql } from '../../src/db/pool.js';
import { APPENDED_TO_FOLD, LAST_PRE_RELEASE_NUMBER } from '../../src/db/pre-release-chain.js';
import { catalogDescription } from './catalog.js';

// Three databases, each migrated as a deployed one of its kind was, then with the
// working tree's files as such a database meets them:
//
//   the second pre-release chain (sql/001_users..007 and sql/100..283, read from
//   git at the commit before the pre-release fold), then carried over
//   (src/db/pre-release-chain.ts);
//   the pre-release fold (sql/001..009 and the files appended to it, 284..287, read
//   from git at the commit before they were folded into the released files), then
//   carried over;
//   the released files alone (sql/001..009).
//
// Migrations appended after the release (numbered after 287) run on all three.
// They are then described (pg_dump --schema-only and --data-only where a pg_dump of
// the server's major version or newer is at hand, and always the catalogue: every
// relation, column in order, constraint, index, function, trigger, view, domain,
// sequence, extension and privilege, and each table's rows), and each of the first
// two compared with the third, as are their schema_migrations. Only the order of
// objects is normalised; column order is not. Also compared: the second chain and
// the pre-release fold's own sql/001..009, before any carry-over, which may differ
// only in the generation bumps.

/** The last file of the second pre-release chain: the commit before its removal has the whole chain. */
const LAST_OLD_FILE = 'sql/283_removed_packages.sql';
/** The last file appended to the pre-release fold: the commit before its removal has the fold and all four. */
const LAST_FOLD_FILE = 'sql/287_live_entry_kind.sql';
/** The first number appended to the pre-release fold: the second chain's files are below it. */
const FIRST_APPENDED_TO_FOLD = APPENDED_TO_FOLD[0]![0];
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

/** One kind of pre-release database, carried over, against the released files. */
export interface SideComparison {
  commit: string;
  files: number;
  /** null when no pg_dump fits the server (e.g. the embedded PostgreSQL ships none). */
  pgDump: { schemaDiff: string; dataDiff: string } | null;
  catalog: { diff: string };
  /** schema_migrations (version, name, checksum), as a diff; '' when the same. */
  recorded: { diff: string };
}

export interface Comparison {
  releasedFiles: number;
  appendedFiles: number;
  serverVersion: string;
  /** The pg_dump used and the size of the released side's dumps, or null. */
  pgDump: { version: string; schemaObjects: number; dataLines: number } | null;
  catalog: { entries: number };
  recorded: { rows: number };
  secondChain: SideComparison;
  preReleaseFold: SideComparison;
  /**
   * The second chain and the pre-release fold's sql/001..009, before the carry-over:
   * the triggers that call an old bump function (`rewritten`), and the lines that
   * still differ once those calls name bump_generation and its number instead, but
   * for the bump functions themselves: must be none.
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

/** The commit that made the pre-release fold: the first to hold sql/009_generation_bumps.sql. */
export function preReleaseFoldStart(): string {
  return git(['rev-list', '--reverse', 'HEAD', '--', 'sql/009_generation_bumps.sql']).split('\n')[0]!;
}

/** The SHA-256 of every text `path` had from commit `from` (included) up to `until`. */
export function checksumsInHistory(path: string, from: string, until: string): string[] {
  const commits = [from, ...git(['rev-list', `${from}..${until}`, '--', path]).split('\n').filter(Boolean)];
  return [...new Set(commits.map((commit) => createHash('sha256').update(git(['show', `${commit}:${path}`])).digest('hex')))];
}

/** The pre-release fold and the files appended to it: the commit before they were folded into the released files. */
export function preReleaseFoldCommit(): string {
  return preReleaseCommit(LAST_FOLD_FILE);
}

/** The migration files at `commit` numbered below `below`: the second pre-release chain by default. */
export function preReleaseMigrations(commit: string, below = FIRST_APPENDED_TO_FOLD): Migration[] {
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
  /** The commit of the second chain (default: preReleaseCommit()). */
  oldCommit?: string;
  /** The commit of the pre-release fold and its appended files (default: preReleaseFoldCommit()). */
  foldCommit?: string;
  /** pg_dump programs to try, first fitting one wins. */
  pgDumps?: string[];
  /** The released and appended migrations; defaults to the working tree's sql/. */
  migrations?: Migration[];
}

export async function compareChains(options: CompareOptions): Promise<Comparison> {
  const oldCommit = options.oldCommit ?? preReleaseCommit();
  const foldCommit = options.foldCommit ?? preReleaseFoldCommit();
  const current = options.migrations ?? readMigrations();
  const appended = current.filter((migration) => migration.version > LAST_PRE_RELEASE_NUMBER);
  const old = preReleaseMigrations(oldCommit);
  const fold = preReleaseMigrations(foldCommit, LAST_PRE_RELEASE_NUMBER + 1);
  const foldAlone = fold.filter((migration) => migration.version < FIRST_APPENDED_TO_FOLD);
  const admin = postgres(options.serverUrl, { max: 1, onnotice: () => {} });
  const names = { old: `fold_check_old_${process.pid}`, fold: `fold_check_fold_${process.pid}`, released: `fold_check_new_${process.pid}` };
  const urls = { old: withDatabase(options.serverUrl, names.old), fold: withDatabase(options.serverUrl, names.fold), released: withDatabase(options.serverUrl, names.released) };
  try {
    for (const name of Object.values(names)) {
      await admin.unsafe(`drop database if exists ${name}`);
      await admin.unsafe(`create database ${name}`);
    }
    // Each list of `stages` in turn, described after the first; then all of `current` on top.
    const migrateInStages = async (url: string, stages: Migration[][]) => {
      const sql = postgres(url, { max: 1, onnotice: () => {} }) as unknown as Sql;
      try {
        let beforeCatalog: string[] = [];
        for (const [i, stage] of stages.entries()) {
          await migrate(sql, silentLogger, stage);
          if (i === 0) beforeCatalog = await catalogDescription(sql);
        }
        await migrate(sql, silentLogger, current);
        const recorded = (await sql<{ version: number; name: string; checksum: string }[]>`
          select version, name, checksum from schema_migrations order by version`).map((row) => `${row.version} ${row.name} ${row.checksum}`);
        return { beforeCatalog, catalog: await catalogDescription(sql), recorded };
      } finally {
        await sql.end();
      }
    };
    const oldSide = await migrateInStages(urls.old, [old]);
    const foldSide = await migrateInStages(urls.fold, [foldAlone, fold]);
    const releasedSide = await migrateInStages(urls.released, []);
    const [{ server_version: serverVersion, major }] = await admin<{ server_version: string; major: number }[]>`
      select current_setting('server_version') as server_version, current_setting('server_version_num')::int / 10000 as major`;
    const pgDump = fittingPgDump(options.pgDumps ?? [], major!);
    const dumpOf = (url: string) => {
      if (!pgDump) return null;
      const dump = (args: string[]) => execFileSync(pgDump.path, [...args, '--no-owner', url], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      return {
        schema: normalizeDump(dump(['--schema-only'])),
        data: normalizeData(dump(['--data-only', '--inserts', '--exclude-table=public.schema_migrations'])),
      };
    };
    const dumps = { old: dumpOf(urls.old), fold: dumpOf(urls.fold), released: dumpOf(urls.released) };
    const side = (commit: string, files: number, of: typeof oldSide, dumped: typeof dumps.old): SideComparison => ({
      commit,
      files,
      pgDump: dumped && dumps.released ? { schemaDiff: diffOf(dumped.schema, dumps.released.schema), dataDiff: diffOf(dumped.data, dumps.released.data) } : null,
      catalog: { diff: diffOf(of.catalog, releasedSide.catalog) },
      recorded: { diff: diffOf(of.recorded, releasedSide.recorded) },
    });
    const secondChain = side(oldCommit, old.length, oldSide, dumps.old);
    const preReleaseFold = side(foldCommit, fold.length, foldSide, dumps.fold);
    const rewrittenOld = oldSide.beforeCatalog.map(carriedOver);
    const oldLines = new Set(rewrittenOld);
    const foldLines = new Set(foldSide.beforeCatalog);
    const onlyOld = rewrittenOld.filter((line) => !foldLines.has(line));
    const onlyFold = foldSide.beforeCatalog.filter((line) => !oldLines.has(line));
    const beforeCarryOver = {
      rewritten: rewrittenOld.filter((line, i) => line !== oldSide.beforeCatalog[i]).length,
      functions: { old: onlyOld.filter((line) => BUMP_FUNCTION.test(line)).length, folded: onlyFold.filter((line) => BUMP_FUNCTION.test(line)).length },
      unexpected: [...onlyOld.map((line) => `- ${line}`), ...onlyFold.map((line) => `+ ${line}`)].filter((line) => !BUMP_FUNCTION.test(line.slice(2))),
    };
    const same = (of: SideComparison) => of.catalog.diff === '' && of.recorded.diff === '' && (!of.pgDump || (of.pgDump.schemaDiff === '' && of.pgDump.dataDiff === ''));
    return {
      releasedFiles: current.length - appended.length,
      appendedFiles: appended.length,
      serverVersion: serverVersion!,
      pgDump: pgDump && dumps.released ? { version: pgDump.version, schemaObjects: dumps.released.schema.length, dataLines: dumps.released.data.length } : null,
      catalog: { entries: releasedSide.catalog.length },
      recorded: { rows: releasedSide.recorded.length },
      secondChain,
      preReleaseFold,
      beforeCarryOver,
      identical: same(secondChain) && same(preReleaseFold) && beforeCarryOver.unexpected.length === 0,
    };
  } finally {
    for (const name of Object.values(names)) await admin.unsafe(`drop database if exists ${name}`).catch(() => {});
    await admin.end();
  }
}
