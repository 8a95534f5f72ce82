import type { Sql } from '../../../../db/pool.js';
import { runNamed } from '../../../../db/queries.js';
import type { PluginRow } from '../records.js';
import type { PackageEntry } from '../../image-host/package-answer.js';
import { ownVersionRecord, versionRecord, versionRowOf, type VersionRow } from './records.js';

// What a reviewer sees of hosted files (issue 19, "Reviews pin the bytes"): on a
// plugin's record for its author and administrators (detail only),
//   `package`: the hosted version the plugin carries (live, or submitted), and
//   `pendingUpdate.package`: the hosted version its pending update proposes, with
//     `diff`, its file list against the live version's (added, removed, changed
//     by CRC), when the live version is hosted too.
// Both carry {version, changelog, changelogTree, sha256, size, download, status,
// createdAt, entryCount, files} and what the package says (issue 31): {manifest,
// permissions, entryKind, checks, warningCount}. The record's `revision` changes whenever the pending
// update does (sql/002), so a review naming it approves exactly these bytes.
//
// `pendingUpdate.package` also has `diffCounts: {added, removed, changed}`. In a
// list (include=review) the packages are summaries: no `files`, no `diff`, and of
// the checks only `warningCount`, what the queue shows. A ZIP lists up to 1,000
// long names, so full packages made ~4 MB a plugin and a page of 100 too big to keep
// (kept-answers.ts): rebuilt per request. The review page reads one plugin's
// files from its detail when the administrator opens them.

export interface FileDiff {
  added: PackageEntry[];
  removed: PackageEntry[];
  /** Same name, another CRC (or size): the live and the proposed entry. */
  changed: Array<{ name: string; before: { size: number; crc32: number }; after: { size: number; crc32: number } }>;
}

export function fileDiff(live: PackageEntry[], proposed: PackageEntry[]): FileDiff {
  const before = new Map(live.map((entry) => [entry.name, entry]));
  const after = new Map(proposed.map((entry) => [entry.name, entry]));
  const diff: FileDiff = { added: [], removed: [], changed: [] };
  for (const entry of proposed) {
    const old = before.get(entry.name);
    if (!old) diff.added.push(entry);
    else if (old.crc32 !== entry.crc32 || old.size !== entry.size) {
      diff.changed.push({ name: entry.name, before: { size: old.size, crc32: old.crc32 }, after: { size: entry.size, crc32: entry.crc32 } });
    }
  }
  for (const entry of live) if (!after.has(entry.name)) diff.removed.push(entry);
  return diff;
}

const packageOf = (row: VersionRow) => ({ ...ownVersionRecord(row), files: row.files ?? [] });

/** The version numbers whose hosted files the record of `row` shows: the live one, and the one its pending update proposes. */
function wantedNumbers(row: PluginRow): { live: string; pending: string | null } {
  return { live: row.version, pending: row.pending_changed?.includes('version') ? (row.pending_version as string) : null };
}

/** Adds `package` and `pendingUpdate.package` to `record` (built from `row` for its author or an administrator). */
export async function addPackages(sql: Sql, row: PluginRow, record: Record<string, unknown>): Promise<void> {
  const { live, pending } = wantedNumbers(row);
  const rows = await runNamed(sql, 'store/versions/find-packages', { plugin_id: row.id, versions: pending === null ? [live] : [live, pending] });
  applyPackages(row, record, rows.map(versionRowOf));
}

/** addPackages for many records at once (the review queue's include=review), as summaries (above): one round trip. */
export async function addPackagesToMany(sql: Sql, pairs: Array<{ row: PluginRow; record: Record<string, unknown> }>): Promise<void> {
  if (pairs.length === 0) return;
  const ids: string[] = [];
  const numbers: string[] = [];
  for (const { row } of pairs) {
    const { live, pending } = wantedNumbers(row);
    ids.push(row.id);
    numbers.push(live);
    if (pending !== null) {
      ids.push(row.id);
      numbers.push(pending);
    }
  }
  const found = await runNamed(sql, 'store/versions/find-packages-of', { plugin_ids: ids, versions: numbers });
  const byPlugin = new Map<string, VersionRow[]>();
  for (const described of found) {
    const version = versionRowOf(described);
    const list = byPlugin.get(described.plugin_id);
    if (list) list.push(version);
    else byPlugin.set(described.plugin_id, [version]);
  }
  for (const { row, record } of pairs) applyPackages(row, record, byPlugin.get(row.id) ?? [], true);
}

/** A package without its file list or checks: their count of warnings only. */
const summaryOf = (row: VersionRow) => ({ ...versionRecord(row), warningCount: ownVersionRecord(row).warningCount });

function applyPackages(row: PluginRow, record: Record<string, unknown>, rows: VersionRow[], summary = false): void {
  const pendingVersion = wantedNumbers(row).pending;
  const live = rows.find((item) => item.version === row.version && item.sha256 === row.sha256 && item.download === row.download);
  record.package = live ? (summary ? summaryOf(live) : packageOf(live)) : null;
  const update = record.pendingUpdate as Record<string, unknown> | null;
  if (!update) return;
  const proposed = pendingVersion === null ? undefined : rows.find(
    (item) => item.version === pendingVersion && item.sha256 === row.pending_sha256 && item.download === row.pending_download,
  );
  if (!proposed) {
    update.package = null;
    return;
  }
  const diff = live ? fileDiff(live.files ?? [], proposed.files ?? []) : null;
  const diffCounts = diff && { added: diff.added.length, removed: diff.removed.length, changed: diff.changed.length };
  update.package = summary ? { ...summaryOf(proposed), diffCounts } : { ...packageOf(proposed), diff, diffCounts };
}
