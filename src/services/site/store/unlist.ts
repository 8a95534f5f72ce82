import type { Sql } from '../../../db/pool.js';
import { runQuery } from '../../../db/queries.js';
import type { SessionUser } from '../context.js';
import { changedFields, pluginSnapshot, type Fields } from '../audit/audit-log.js';
import { notify } from '../notifications/notify.js';
import { rejectPendingVersions } from './versions/settle.js';

// Taking a plugin down, the one way every route to it shares: the review action
// "unlist" (plugin-writes.ts), a report's resolution "unlist"
// (src/services/site/reports/resolve-route.ts), and the withdrawal or removal of the last
// version it could carry (versions/version-writes.ts). The plugin becomes rejected
// with the reason, as a rejection would make it; its pending update goes with it
// (the trigger of sql/002_plugins.sql), so no later approval can put live an
// update nobody reviewed; its author hears of it as of any rejection, unless the
// act was their own.

/**
 * Unlists plugin `plugin` (locked by the caller in transaction `tx`) for `reason`,
 * decided by `by` (an administrator, or the author withdrawing the plugin's last
 * version, who is not told of their own act). Returns the audited fields it
 * changed, for the caller's audit entry.
 */
export async function unlistPlugin(
  tx: Sql,
  plugin: { id: string; submitter_id: string },
  reason: string | null,
  by: SessionUser,
): Promise<{ before: Fields; after: Fields }> {
  const before = await pluginSnapshot(tx, plugin.id);
  await runQuery(tx, 'store/review-status', [plugin.id, 'reject', reason, by.id]);
  await rejectPendingVersions(tx, plugin.id);
  if (String(plugin.submitter_id) !== String(by.id)) {
    await notify(tx, {
      recipients: [String(plugin.submitter_id)],
      kind: 'review.rejected',
      plugin: plugin.id,
      actorId: by.id,
      message: `Your plugin ${plugin.id} was rejected${reason === null ? '' : `: ${reason}`}`,
    });
  }
  return changedFields(before, await pluginSnapshot(tx, plugin.id));
}
