import type { Sql } from '../../db/pool.js';
import { HttpError } from '../../http/errors.js';
import { runQuery } from '../../db/queries.js';
import { bytesRemoved } from './version-writes.js';

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

/** In an approval's transaction, once it applied: 409 when the bytes now live were removed for malware. */
export async function refuseRemovedLiveBytes(t: Sql, pluginId: string): Promise<void> {
  const [live] = await runQuery<{ sha256: string }>(t, 'versions/live-bytes', [pluginId]);
  if (live !== undefined && (await bytesRemoved(t, live.sha256))) {
    throw new HttpError(409, 'CONFLICT', 'An administrator removed the file of this version (malware): it cannot go live; reject it');
  }
}
