import { validationFailed } from '../../../../http/errors.js';
import { isObject } from '../../../../lib/json-object.js';
import { MAX_UPDATE_ENTRIES } from './limits.js';

// The body of POST /apps/api/updates: {launcher?, plugins: [{id, version?, sha256?}]},
// 1 to 500 entries, each with an id and what is known of what is installed: a
// version, a hash, both, or neither (a launcher that knows only that it has the
// plugin is answered with the live version). `launcher`, the asking launcher's own
// version, limits the answer to versions it can run (check-updates.sql).

/** One installed plugin, normalized: hash in lower case, absent fields null. */
export interface Installed {
  id: string;
  version: string | null;
  sha256: string | null;
}

const SHA256 = /^[0-9a-fA-F]{64}$/;

/** The longest `launcher` version taken. */
export const MAX_LAUNCHER_VERSION = 64;
/**
 * A launcher version as the Bloret launchers write theirs (25.3.1, 25.4.0-beta.2):
 * an optional v, one to four numbers of at most 9 digits, then an optional
 * pre-release or build part of letters and digits after - + or _.
 */
const LAUNCHER_VERSION = /^[vV]?[0-9]{1,9}(?:\.[0-9]{1,9}){0,3}(?:[-+_][0-9A-Za-z]+(?:[-+_.][0-9A-Za-z]+)*)?$/;

export interface UpdatesQuestion {
  /** The asking launcher's version, null when not given: then every plugin's live version is offered. */
  launcher: string | null;
  plugins: Installed[];
}

export function updatesInput(body: unknown): UpdatesQuestion {
  if (!isObject(body)) throw validationFailed('plugins', 'The body must be a JSON object {launcher?, plugins: [{id, version?, sha256?}]}');
  return { launcher: launcherVersion(body.launcher), plugins: installedPlugins(body.plugins) };
}

function launcherVersion(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > MAX_LAUNCHER_VERSION || !LAUNCHER_VERSION.test(value)) {
    throw validationFailed('launcher', `launcher must be the launcher's version, such as "25.3.1" or "25.4.0-beta.2" (at most ${MAX_LAUNCHER_VERSION} characters)`);
  }
  return value;
}

function installedPlugins(plugins: unknown): Installed[] {
  if (!Array.isArray(plugins)) throw validationFailed('plugins', 'plugins must be a list of {id, version?, sha256?}');
  if (plugins.length < 1 || plugins.length > MAX_UPDATE_ENTRIES) {
    throw validationFailed('plugins', `plugins must hold 1 to ${MAX_UPDATE_ENTRIES} entries`);
  }
  return plugins.map((entry, index): Installed => {
    const at = `plugins[${index}]`;
    if (!isObject(entry)) throw validationFailed(at, `${at} must be an object {id, version?, sha256?}`);
    const { id, version, sha256 } = entry;
    if (typeof id !== 'string' || id.length < 1 || id.length > 128) throw validationFailed(`${at}.id`, `${at}.id must be a string of 1 to 128 characters`);
    if (version !== undefined && version !== null && (typeof version !== 'string' || version.length < 1 || version.length > 64)) {
      throw validationFailed(`${at}.version`, `${at}.version must be a string of 1 to 64 characters`);
    }
    if (sha256 !== undefined && sha256 !== null && (typeof sha256 !== 'string' || !SHA256.test(sha256))) {
      throw validationFailed(`${at}.sha256`, `${at}.sha256 must be 64 hexadecimal digits`);
    }
    return { id, version: (version as string | null | undefined) ?? null, sha256: sha256 ? (sha256 as string).toLowerCase() : null };
  });
}

/**
 * The request in a canonical order, without repeated entries: the key its answer is
 * kept under, and the order of that answer (the same question asked in another
 * order gets the same bytes).
 */
export function normalized(entries: Installed[]): Installed[] {
  const seen = new Set<string>();
  const unique: Installed[] = [];
  for (const entry of entries) {
    const key = JSON.stringify([entry.id, entry.version, entry.sha256]);
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(entry);
  }
  return unique.sort((a, b) => compare(a.id, b.id) || compare(a.version ?? '', b.version ?? '') || compare(a.sha256 ?? '', b.sha256 ?? ''));
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
