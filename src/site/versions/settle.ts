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

/**
 * In an approval's transaction, once it applied: 409 when what would now be live
 * was taken off. A plugin whose only version was withdrawn or removed left the
 * store rejected but still names that version; approving it (an author's edit
 * reopens it) must not put it back: a new version has to be uploaded. Nor may
 * bytes removed for malware go live under any version.
 */
export async function refuseTakenOffLive(t: Sql, pluginId: string): Promise<void> {
  const [live] = await runQuery<{ sha256: string | null; version_status: string | null }>(t, 'versions/live-version', [pluginId]);
  if (live === undefined) return;
  if (live.version_status === 'withdrawn' || live.version_status === 'removed') {
    throw new HttpError(409, 'CONFLICT', `The version this plugin carries was ${live.version_status}: it cannot go live again; its author uploads a new version`);
  }
  if (live.sha256 !== null && (await bytesRemoved(t, live.sha256))) {
    throw new HttpError(409, 'CONFLICT', 'An administrator removed the file of this version (malware): it cannot go live; reject it');
  }
}
