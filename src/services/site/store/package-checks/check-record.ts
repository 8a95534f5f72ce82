import type { Sql } from '../../../../db/pool.js';
import { runNamed } from '../../../../db/queries.js';
import type { StorePackageChecksFindManyRow } from '../../../../db/query-rows.js';

// `packageCheck` on a plugin's record: everything for its author and
// administrators; for anyone else, only that its download changed since review
// ({status: 'changed', checkedAt}), so the plugin page can say so.

/** What find.sql and find-many.sql both answer of a check. */
type CheckRow = Omit<StorePackageChecksFindManyRow, 'plugin_id'>;

export async function findPackageCheck(sql: Sql, pluginId: string): Promise<CheckRow | undefined> {
  const [row] = await runNamed(sql, 'store/package-checks/find', { plugin_id: pluginId });
  return row;
}

/** The checks of several plugins by id (a review page's records), in one query. */
export async function findPackageChecks(sql: Sql, pluginIds: string[]): Promise<Map<string, CheckRow>> {
  const rows = await runNamed(sql, 'store/package-checks/find-many', { plugin_ids: pluginIds });
  return new Map(rows.map((row) => [row.plugin_id, row]));
}

/** Sets `record.packageCheck` (or leaves it out: hosted download, or nothing a visitor needs). */
export function addPackageCheck(record: Record<string, unknown>, row: CheckRow | undefined, full: boolean): void {
  if (!row) return;
  const checkedAt = row.checked_at ? row.checked_at.toISOString() : null;
  if (!full) {
    if (row.status === 'changed') record.packageCheck = { status: 'changed', checkedAt };
    return;
  }
  const check: Record<string, unknown> = { status: row.status };
  if (row.sha256 !== null) check.sha256 = row.sha256;
  if (row.size !== null) check.size = Number(row.size);
  if (row.entry_count !== null) check.entryCount = row.entry_count;
  if (row.manifest !== null) check.manifest = row.manifest;
  if (row.checks !== null) check.checks = row.checks;
  if (row.reason !== null) check.reason = row.reason;
  check.checkedAt = checkedAt;
  record.packageCheck = check;
}
