import type { Sql } from '../../../../db/pool.js';
import { HttpError } from '../../../../http/errors.js';
import { runNamed, runQuery } from '../../../../db/queries.js';
import { isBlocked, type Check } from './manifest/checks.js';
import { bytesRemoved } from './version-writes.js';

// What the store's reviews do to versions (called by src/services/site/store in the
// review's or takedown's transaction, the plugin locked).

/**
 * After a review's decision: pending versions follow what went live
 * (settle-after-review.sql), and the plugin's permissions are what the live hosted
 * version's manifest declares (syncLivePermissions).
 */
export async function settleVersionsAfterReview(t: Sql, pluginId: string, action: 'approve' | 'reject'): Promise<void> {
  await runQuery(t, 'store/versions/settle-after-review', [pluginId, action]);
  if (action === 'approve') await syncLivePermissions(t, pluginId);
}

/**
 * Once a hosted version whose manifest was read is live, the plugin's `permissions`
 * are that manifest's (issue 31): what the launcher grants, not what the author
 * typed. Called whenever what the plugin serves changes (an approval, a version
 * taken off for an earlier one).
 */
export async function syncLivePermissions(t: Sql, pluginId: string): Promise<void> {
  await runNamed(t, 'store/versions/sync-live-permissions', { plugin_id: pluginId });
}

/** A takedown (unlist): the plugin's pending versions are rejected with its pending update. */
export async function rejectPendingVersions(t: Sql, pluginId: string): Promise<void> {
  await runQuery(t, 'store/versions/reject-pending', [pluginId]);
}

/**
 * In an approval's transaction, once it applied: 409 when what would now be live
 * was taken off. A plugin whose only version was withdrawn or removed left the
 * store rejected but still names that version; approving it (an author's edit
 * reopens it) must not put it back: a new version has to be uploaded. Nor may
 * bytes removed for malware go live under any version.
 */
export async function refuseTakenOffLive(t: Sql, pluginId: string): Promise<void> {
  const [live] = await runQuery<{ sha256: string | null; version_status: string | null; checks: Check[] | null }>(t, 'store/versions/live-version', [pluginId]);
  if (live === undefined) return;
  if (live.version_status === 'withdrawn' || live.version_status === 'removed') {
    throw new HttpError(409, 'CONFLICT', `The version this plugin carries was ${live.version_status}: it cannot go live again; its author uploads a new version`);
  }
  if (live.checks !== null && isBlocked(live.checks)) {
    throw new HttpError(409, 'CONFLICT', 'A check blocks this version (a file of a package removed as malware, or a secret: its checks say which): it cannot go live; reject it');
  }
  if (live.sha256 !== null && (await bytesRemoved(t, live.sha256))) {
    throw new HttpError(409, 'CONFLICT', 'An administrator removed the file of this version (malware): it cannot go live; reject it');
  }
}
