import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Migration } from './migration.js';
import { LAST_PRE_RELEASE_NUMBER } from './pre-release-chain.js';

// The migrations of the releases: sql/released.sha256, one line per file in
// sha256sum's format, so `cd sql && sha256sum -c released.sha256` checks them too.
// From 1.0.0 on a released file is never edited, removed or renamed (a database
// that ran it would not have what a new one gets), and a new migration is
// appended: numbered after every released one and after the numbers of the
// pre-release history, which carried-over databases may still record.
// test/db/released-migrations.test.ts holds sql/ to the list; readMigrations
// refuses a file out of order, so no process starts with one.

export const RELEASED_LIST = 'released.sha256';
const LINE = /^([0-9a-f]{64}) {2}(\d{3})_([a-z0-9_]+)\.sql$/;

export interface ReleasedFile {
  version: number;
  name: string;
  sha256: string;
}

const fileName = (version: number, name: string) => `sql/${String(version).padStart(3, '0')}_${name}.sql`;

/** The lines of a released.sha256; a line of another shape is an error naming it. */
export function parseReleased(text: string): ReleasedFile[] {
  return text.split('\n').filter((line) => line !== '').map((line, i) => {
    const match = LINE.exec(line);
    if (!match) throw new Error(`sql/${RELEASED_LIST} line ${i + 1}: expected "<sha256>  NNN_name.sql", as sha256sum writes it`);
    return { sha256: match[1]!, version: Number(match[2]), name: match[3]! };
  });
}

/** The list of `dir`, or null where there is none (old migrations taken from git). */
export function readReleased(dir: string): ReleasedFile[] | null {
  const path = join(dir, RELEASED_LIST);
  return existsSync(path) ? parseReleased(readFileSync(path, 'utf8')) : null;
}

/** The lowest number a migration appended after the released ones may have. */
export function firstAppendable(released: ReleasedFile[]): number {
  return Math.max(LAST_PRE_RELEASE_NUMBER, ...released.map((file) => file.version)) + 1;
}

/** Each migration that is not a released one and not numbered after them, as a message. */
export function outOfOrder(migrations: Migration[], released: ReleasedFile[]): string[] {
  const first = firstAppendable(released);
  const isReleased = (m: Migration) => released.some((file) => file.version === m.version && file.name === m.name);
  return migrations.filter((m) => !isReleased(m) && m.version < first).map((m) =>
    `${fileName(m.version, m.name)} is not a released migration and is numbered before ${first}: from 1.0.0 on migrations are only appended, so number it ${first} or above`);
}

/**
 * Every way sql/ differs from the released list: a released file edited, removed
 * or renamed, or a new one not appended after them. Empty when none.
 */
export function releaseProblems(migrations: Migration[], released: ReleasedFile[]): string[] {
  const problems: string[] = [];
  for (const file of released) {
    const same = migrations.find((m) => m.version === file.version);
    if (!same) problems.push(`${fileName(file.version, file.name)} was released but is missing: a released migration is never removed`);
    else if (same.name !== file.name) problems.push(`${fileName(file.version, file.name)} was released but sql/ holds ${fileName(same.version, same.name)} under its number: a released migration is never renamed`);
    else if (same.checksum !== file.sha256) problems.push(`${fileName(file.version, file.name)} was released with SHA-256 ${file.sha256} but is now ${same.checksum}: a released migration is never edited; append a new one`);
  }
  const releasedVersions = new Set(released.map((file) => file.version));
  return [...problems, ...outOfOrder(migrations.filter((m) => !releasedVersions.has(m.version)), released)];
}
