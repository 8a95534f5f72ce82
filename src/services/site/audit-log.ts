import type { Sql } from '../../db/pool.js';
import { runNamed } from '../../db/queries.js';
import type { SessionUser } from './context.js';

// Writing the audit log (sql/006_tokens_audit_reports_notifications_webhooks.sql).
// Every call runs inside the transaction of the action it records, so an action
// and its entry commit or roll back together. Below the features, as the store,
// reports and API tokens write it; audit/ reads it for administrators.

/** What an entry is about: a plugin, one user's rating of a plugin, a report, or an API token. */
export type AuditTarget =
  | { type: 'plugin'; plugin: string }
  | { type: 'rating'; plugin: string; user: string }
  | { type: 'report'; plugin: string; user?: string }
  /** An API token, by its owner's username (the token's id and name are in before/after). */
  | { type: 'token'; user: string };

export type Fields = Record<string, unknown>;

export interface AuditEntryInput {
  actor: SessionUser;
  action: string;
  target: AuditTarget;
  before: Fields;
  after: Fields;
}

export async function recordAudit(tx: Sql, entry: AuditEntryInput): Promise<void> {
  await runNamed(tx, 'audit/record', {
    actor_id: entry.actor.id,
    actor: entry.actor.username,
    action: entry.action,
    target_type: entry.target.type,
    target_plugin: 'plugin' in entry.target ? entry.target.plugin : null,
    target_user: 'user' in entry.target ? (entry.target.user ?? null) : null,
    before: JSON.stringify(entry.before),
    after: JSON.stringify(entry.after),
  });
}

/** The audited fields of a plugin now (read under the action's row lock), in API names. */
export async function pluginSnapshot(tx: Sql, pluginId: string): Promise<Fields> {
  const [row] = await runNamed(tx, 'audit/plugin-snapshot', { plugin_id: pluginId });
  return row ? (JSON.parse(row.fields) as Fields) : {};
}

/** Only the fields that differ, each side with its own value: what an entry's before/after hold. */
export function changedFields(before: Fields, after: Fields): { before: Fields; after: Fields } {
  const changed = { before: {} as Fields, after: {} as Fields };
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[key]) === JSON.stringify(after[key])) continue;
    changed.before[key] = before[key] ?? null;
    changed.after[key] = after[key] ?? null;
  }
  return changed;
}

/**
 * Runs `change` and records it as `action` on plugin `pluginId` with the fields it
 * changed, when it changed any: one snapshot before, one after, in the caller's
 * transaction.
 */
export async function auditedPluginChange<T>(
  tx: Sql,
  entry: { actor: SessionUser; action: string | ((before: Fields, after: Fields) => string); pluginId: string },
  change: () => Promise<T>,
): Promise<T> {
  const before = await pluginSnapshot(tx, entry.pluginId);
  const result = await change();
  const after = await pluginSnapshot(tx, entry.pluginId);
  const diff = changedFields(before, after);
  if (Object.keys(diff.after).length > 0) {
    const action = typeof entry.action === 'string' ? entry.action : entry.action(diff.before, diff.after);
    await recordAudit(tx, { actor: entry.actor, action, target: { type: 'plugin', plugin: entry.pluginId }, ...diff });
  }
  return result;
}
