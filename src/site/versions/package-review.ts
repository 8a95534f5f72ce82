import type { Sql } from '../../db/pool.js';
import { runQuery } from '../../db/queries.js';
import type { PluginRow } from '../store/records.js';
import type { PackageEntry } from './package-client.js';
import { versionRecord, type VersionRow } from './records.js';

// What a reviewer sees of hosted files (issue 19, "Reviews pin the bytes"): on a
// plugin's record for its author and administrators (detail only),
//   `package`: the hosted version the plugin carries (live, or submitted), and
//   `pendingUpdate.package`: the hosted version its pending update proposes, with
//     `diff`, its file list against the live version's (added, removed, changed
//     by CRC), when the live version is hosted too.
// Both carry {version, changelog, changelogTree, sha256, size, download, status,
// createdAt, entryCount, files}. The record's `revision` changes whenever the pending
// update does (sql/100), so a review naming it approves exactly these bytes.

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

const packageOf = (row: VersionRow) => ({ ...versionRecord(row), files: row.files ?? [] });

/** Adds `package` and `pendingUpdate.package` to `record` (built from `row` for its author or an administrator). */
export async function addPackages(sql: Sql, row: PluginRow, record: Record<string, unknown>): Promise<void> {
  const pendingVersion = row.pending_changed?.includes('version') ? (row.pending_version as string) : null;
  const numbers = pendingVersion === null ? [row.version] : [row.version, pendingVersion];
  const rows = await runQuery<VersionRow>(sql, 'versions/find-packages', [row.id, numbers]);
  const live = rows.find((item) => item.version === row.version && item.sha256 === row.sha256 && item.download === row.download);
  record.package = live ? packageOf(live) : null;
  const update = record.pendingUpdate as Record<string, unknown> | null;
  if (!update) return;
  const proposed = pendingVersion === null ? undefined : rows.find(
    (item) => item.version === pendingVersion && item.sha256 === row.pending_sha256 && item.download === row.pending_download,
  );
  if (!proposed) {
    update.package = null;
    return;
  }
  update.package = { ...packageOf(proposed), diff: live ? fileDiff(live.files ?? [], proposed.files ?? []) : null };
}
