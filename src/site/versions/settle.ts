import type { Sql } from '../../db/pool.js';
import { runQuery } from '../../db/queries.js';

// What the store's reviews do to versions (called by src/site/store in the
// review's or takedown's transaction, the plugin locked).

/** After a review's decision: pending versions follow what went live (settle-after-review.sql). */
export async function settleVersionsAfterReview(t: Sql, pluginId: string, action: 'approve' | 'reject'): Promise<void> {
  await runQuery(t, 'versions/settle-after-review', [pluginId, action]);
}

/** A takedown (unlist): the plugin's pending versions are rejected with its pending update. */
export async function rejectPendingVersions(t: Sql, pluginId: string): Promise<void> {
  await runQuery(t, 'versions/reject-pending', [pluginId]);
}
