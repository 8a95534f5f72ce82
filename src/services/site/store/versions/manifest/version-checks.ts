import type { Sql } from '../../../../../db/pool.js';
import { runNamed } from '../../../../../db/queries.js';
import { computeChecks, type Check, type LiveVersion, type SimilarPlugin } from './checks.js';
import { readManifest, type ReadManifest } from './launcher-manifest.js';
import type { Finding, FoundManifest, PackageFile, PackageReport } from '../../../image-host/package-report.js';
import type { Permission } from './permissions.js';

// The checks of a version with what they need from the database: the blocklist,
// the version its plugin serves, the approved plugins of similar names. Run in the
// transaction that writes them, the plugin locked.

/** How alike (pg_trgm similarity of the compact forms) a name or id must be to be "close". */
export const SIMILAR_AT_LEAST = 0.5;
/** Names shorter than this (compact) are too short for closeness to mean anything. */
const SHORTEST_COMPARED = 4;
/** At most this many checks of one code are kept; one more says how many were left out. */
export const MAX_CHECKS_PER_CODE = 100;

const compact = (value: string): string => value.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

async function liveVersion(t: Sql, pluginId: string): Promise<LiveVersion | null> {
  const [row] = await runNamed(t, 'store/versions/live-for-checks', { plugin_id: pluginId });
  if (!row || row.status !== 'approved') return null;
  // A hosted version read since manifests are: what its manifest grants (the JSON
  // the upload wrote, sql/007_versions.sql). Else what players were shown: the plugin's own field
  // (an outside link, an older version).
  if (row.has_manifest) return { permissions: ((row.version_permissions ?? []) as Permission[]).map((p) => p.id), entryKind: row.entry_kind };
  return { permissions: row.permissions, entryKind: null };
}

async function similarPlugins(t: Sql, pluginId: string, submitterId: string, name: string): Promise<SimilarPlugin[]> {
  const nameKey = compact(name);
  const idKey = compact(pluginId);
  if (nameKey.length < SHORTEST_COMPARED && idKey.length < SHORTEST_COMPARED) return [];
  const rows = await runNamed(t, 'store/versions/similar-plugins', {
    plugin_id: pluginId,
    submitter_id: submitterId,
    // A key too short to compare is replaced by one nothing is like.
    name_key: nameKey.length < SHORTEST_COMPARED ? '' : nameKey,
    id_key: idKey.length < SHORTEST_COMPARED ? '' : idKey,
    threshold: SIMILAR_AT_LEAST,
  });
  // One check per plugin, by what is closest first.
  const seen = new Set<string>();
  return rows
    .filter((row) => !seen.has(row.id) && seen.add(row.id))
    .map((row) => (row.close === 'name' ? { id: row.id, name: row.name, close: 'name', mine: name } : { id: row.id, name: row.name, close: 'id', mine: pluginId }));
}

/** `checks` with at most MAX_CHECKS_PER_CODE of each code; the ones left out counted in one more. */
export function boundChecks(checks: Check[]): Check[] {
  const counts = new Map<string, number>();
  const kept: Check[] = [];
  for (const check of checks) {
    const count = (counts.get(check.code) ?? 0) + 1;
    counts.set(check.code, count);
    if (count <= MAX_CHECKS_PER_CODE) kept.push(check);
  }
  for (const [code, count] of counts) {
    if (count <= MAX_CHECKS_PER_CODE) continue;
    const like = kept.find((check) => check.code === code)!;
    kept.push({ code: like.code, level: like.level, message: `And ${count - MAX_CHECKS_PER_CODE} more like these` });
  }
  return kept;
}

export interface CheckedVersion extends ReadManifest {
  checks: Check[];
}

/**
 * The checks of version `read` (its manifest read) of plugin `pluginId` submitted
 * by `submitterId`, given its findings and the names of its files whose bytes are
 * blocked.
 */
export async function checkVersion(
  t: Sql,
  plugin: { id: string; submitterId: string },
  read: ReadManifest,
  findings: Finding[],
  blockedFiles: string[],
): Promise<CheckedVersion> {
  const checks = computeChecks({
    findings,
    blockedFiles,
    permissions: read.permissions,
    entryKind: read.entryKind,
    live: await liveVersion(t, plugin.id),
    similar: await similarPlugins(t, plugin.id, plugin.submitterId, read.manifest.name),
  });
  return { ...read, checks: boundChecks(checks) };
}

/** Of a new package's files, the names whose bytes are blocked (the caller holds the blocklist's shared lock). */
export async function blockedAmong(t: Sql, files: PackageFile[]): Promise<string[]> {
  if (files.length === 0) return [];
  const rows = await runNamed(t, 'store/versions/blocked-among', { names: files.map((f) => f.name), hashes: files.map((f) => f.sha256) });
  // Null only for a null among the names asked, which no file has.
  return rows.flatMap((row) => (row.name === null ? [] : [row.name]));
}

/** A stored version as its checks are computed again (version-for-checks.sql, recheck-candidates.sql). */
export interface StoredVersionRow {
  plugin_id: string;
  version: string;
  status: string;
  submitter_id: string;
  manifest_source: FoundManifest;
  findings: Finding[];
  checks: Check[];
  files: PackageFile[];
}

/**
 * Version `version` of plugin `pluginId` as its checks are computed again; null
 * when there is none or it was uploaded before manifests were kept (nothing to
 * compute them from). Its JSON is typed as the upload wrote it (sql/007_versions.sql).
 */
export async function readStoredVersion(t: Sql, pluginId: string, version: string): Promise<StoredVersionRow | null> {
  const [row] = await runNamed(t, 'store/versions/version-for-checks', { plugin_id: pluginId, version });
  if (row === undefined || row.manifest_source === null) return null;
  return {
    plugin_id: row.plugin_id,
    version: row.version,
    status: row.status,
    submitter_id: row.submitter_id,
    manifest_source: row.manifest_source as FoundManifest,
    findings: row.findings as Finding[],
    checks: row.checks as Check[],
    files: row.files as PackageFile[],
  };
}

/** The stored report of `row`, as the image host gave it at upload. */
export function storedReport(row: StoredVersionRow): PackageReport {
  return { manifest: row.manifest_source, manifestProblem: null, findings: row.findings, files: row.files };
}

/**
 * Computes the checks of a stored version again under the current rules and
 * writes them (with the manifest, permissions and entry kind read again). Answers
 * the old and new checks, or the reason its manifest is no longer accepted (then
 * nothing is written).
 */
export async function recheckStored(t: Sql, row: StoredVersionRow): Promise<{ before: Check[]; after: Check[] } | { refused: string }> {
  let read: ReadManifest;
  try {
    read = readManifest(storedReport(row), row.plugin_id);
  } catch (error) {
    return { refused: (error as Error).message };
  }
  const blocked = (await runNamed(t, 'store/versions/blocked-files-of', { plugin_id: row.plugin_id, version: row.version })).map((r) => r.name);
  const checked = await checkVersion(t, { id: row.plugin_id, submitterId: row.submitter_id }, read, row.findings, blocked);
  await runNamed(t, 'store/versions/set-checks', {
    plugin_id: row.plugin_id,
    version: row.version,
    manifest_json: JSON.stringify(checked.manifest),
    permissions_json: JSON.stringify(checked.permissions),
    checks_json: JSON.stringify(checked.checks),
    entry_kind: checked.entryKind,
  });
  return { before: row.checks, after: checked.checks };
}

/** After a removal blocked files: the pending versions holding them get the blocked-file check. */
export async function blockPendingHolders(t: Sql, removed: { pluginId: string; version: string }): Promise<number> {
  const holders = await runNamed(t, 'store/versions/pending-holding-blocked', { plugin_id: removed.pluginId, version: removed.version });
  for (const holder of holders) {
    const row = await readStoredVersion(t, holder.plugin_id, holder.version);
    if (row !== null) await recheckStored(t, row);
  }
  return holders.length;
}
