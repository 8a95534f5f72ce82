import type { Sql } from '../../../db/pool.js';
import { runNamed } from '../../../db/queries.js';
import { HttpError } from '../../../http/errors.js';
import type { SessionUser } from '../context.js';
import { changedFields, pluginSnapshot, type Fields } from '../audit-log.js';
import { notify } from '../notifications/notify.js';
import { isBlocked, type Check } from './versions/manifest/checks.js';
import { bytesRemoved } from './versions/removed-bytes.js';
import { canSee, isOwnerOrAdmin, PLUGIN_ID, pluginNotFound, pluginStatusOf, type PluginAccess } from './visibility.js';

// The plugin row's lock, and what changes a plugin's state together with its
// versions. Every write to a plugin (an edit, a review, a report's unlist, a
// version's upload, withdrawal or removal, a recheck) takes the lock here, first
// and once per transaction, and hands the LockedPlugin down: so concurrent writes
// take turns, and what a review compared (`revision`) is what it decides. The
// settling of versions after a review, a takedown or a withdrawal lives here too,
// so neither the catalogue (plugin-writes.ts) nor versions/ reaches into the other.

declare const lockHeld: unique symbol;

/** A plugin whose row this transaction locked (lockPlugin): only this module makes one. */
export interface LockedPlugin extends PluginAccess {
  readonly [lockHeld]: true;
}

/**
 * Locks plugin `id` (any case) in transaction `t`; undefined when there is none.
 * Only the locked row's own columns are read (store/lock-plugin.sql): what depends
 * on other tables is read by the next statement, under the lock.
 */
export async function lockPlugin(t: Sql, id: string): Promise<LockedPlugin | undefined> {
  if (!PLUGIN_ID.test(id)) return undefined;
  const [row] = await runNamed(t, 'store/lock-plugin', { plugin_id: id });
  if (!row) return undefined;
  return { id: row.id, status: pluginStatusOf(row.status), submitterId: row.submitter_id } as LockedPlugin;
}

/**
 * Locks plugin `id` for a change by `user`: 404 when hidden from them, 403
 * (`forbidden`) when visible but neither theirs nor theirs to administer.
 */
export async function lockOwnPlugin(t: Sql, id: string, user: SessionUser, forbidden: string): Promise<LockedPlugin> {
  const plugin = await lockPlugin(t, id);
  if (!plugin) throw pluginNotFound();
  // Changing another user's plugin is 403, but what the caller may not see is 404.
  if (!isOwnerOrAdmin(plugin, user)) {
    if (!canSee(plugin, user)) throw pluginNotFound();
    throw new HttpError(403, 'FORBIDDEN', forbidden);
  }
  return plugin;
}

/**
 * Takes `plugin` down, the one way every route to it shares: the review action
 * "unlist" (plugin-writes.ts), a report's resolution "unlist"
 * (src/services/site/reports/resolve-route.ts), and the withdrawal or removal of the
 * last version it could carry (versions/version-writes.ts). The plugin becomes
 * rejected with `reason`, as a rejection would make it; its pending update goes with
 * it (the trigger of sql/002_plugins.sql) and so do its pending versions, so no
 * later approval can put live what nobody reviewed; its author hears of it as of any
 * rejection, unless the act was their own (`by` withdrawing the last version).
 * Returns the audited fields it changed, for the caller's audit entry.
 */
export async function unlistPlugin(t: Sql, plugin: LockedPlugin, reason: string | null, by: SessionUser): Promise<{ before: Fields; after: Fields }> {
  const before = await pluginSnapshot(t, plugin.id);
  await runNamed(t, 'store/review-status', { plugin_id: plugin.id, action: 'reject', reason, reviewer_id: by.id });
  await runNamed(t, 'store/versions/reject-pending', { plugin_id: plugin.id });
  if (plugin.submitterId !== String(by.id)) {
    await notify(t, {
      recipients: [plugin.submitterId],
      kind: 'review.rejected',
      plugin: plugin.id,
      actorId: by.id,
      message: `Your plugin ${plugin.id} was rejected${reason === null ? '' : `: ${reason}`}`,
    });
  }
  return changedFields(before, await pluginSnapshot(t, plugin.id));
}

/**
 * After a review's decision: pending versions follow what went live
 * (settle-after-review.sql), and the plugin's permissions are what the live hosted
 * version's manifest declares. An approval that would put live a version taken off
 * (withdrawn, removed, blocked by a check, its bytes removed) is 409 (refuseTakenOffLive).
 */
export async function settleVersionsAfterReview(t: Sql, plugin: LockedPlugin, action: 'approve' | 'reject'): Promise<void> {
  await runNamed(t, 'store/versions/settle-after-review', { plugin_id: plugin.id, action });
  if (action !== 'approve') return;
  await syncLivePermissions(t, plugin);
  await refuseTakenOffLive(t, plugin);
}

/**
 * Once a hosted version whose manifest was read is live, the plugin's `permissions`
 * are that manifest's (issue 31): what the launcher grants, not what the author
 * typed. Called whenever what the plugin serves changes (an approval, an
 * administrator's edit, a version taken off for an earlier one).
 */
export async function syncLivePermissions(t: Sql, plugin: LockedPlugin): Promise<void> {
  await runNamed(t, 'store/versions/sync-live-permissions', { plugin_id: plugin.id });
}

/**
 * Version `version`, which `plugin` carries, is being withdrawn or removed: the
 * plugin goes back to its newest earlier approved version, whose manifest's
 * permissions it takes. Returns that version, or null when there is none: the
 * caller then unlists the plugin (unlistPlugin) once the version is off.
 */
export async function goBackFrom(t: Sql, plugin: LockedPlugin, version: string): Promise<string | null> {
  const [earlier] = await runNamed(t, 'store/versions/earlier-approved', { plugin_id: plugin.id, version });
  if (!earlier) return null;
  await runNamed(t, 'store/versions/set-live', { plugin_id: plugin.id, version: earlier.version, download: earlier.download, sha256: earlier.sha256 });
  await syncLivePermissions(t, plugin);
  return earlier.version;
}

/**
 * In an approval's transaction, once it applied: 409 when what would now be live
 * was taken off. A plugin whose only version was withdrawn or removed left the
 * store rejected but still names that version; approving it (an author's edit
 * reopens it) must not put it back: a new version has to be uploaded. Nor may
 * bytes removed for malware go live under any version.
 */
async function refuseTakenOffLive(t: Sql, plugin: LockedPlugin): Promise<void> {
  const [live] = await runNamed(t, 'store/versions/live-version', { plugin_id: plugin.id });
  if (live === undefined) return;
  if (live.version_status === 'withdrawn' || live.version_status === 'removed') {
    throw new HttpError(409, 'CONFLICT', `The version this plugin carries was ${live.version_status}: it cannot go live again; its author uploads a new version`);
  }
  // checks: the JSON the upload wrote (sql/007_versions.sql); null when no version matches what the plugin serves.
  if (live.checks !== null && isBlocked(live.checks as Check[])) {
    throw new HttpError(409, 'CONFLICT', 'A check blocks this version (a file of a package removed as malware, or a secret: its checks say which): it cannot go live; reject it');
  }
  if (live.sha256 !== null && (await bytesRemoved(t, live.sha256))) {
    throw new HttpError(409, 'CONFLICT', 'An administrator removed the file of this version (malware): it cannot go live; reject it');
  }
}
