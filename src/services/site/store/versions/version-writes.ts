import { HttpError } from '../../../../http/errors.js';
import type { Sql } from '../../../../db/pool.js';
import { inTransaction, runNamed } from '../../../../db/queries.js';
import { recordAudit } from '../../audit-log.js';
import type { SessionUser } from '../../context.js';
import { notify } from '../../notifications/notify.js';
import { goBackFrom, lockOwnPlugin, unlistPlugin, type LockedPlugin } from '../plugin-state.js';
import { isBlocked, type Check } from './manifest/checks.js';
import type { ReadManifest } from './manifest/launcher-manifest.js';
import { blockedAmong, blockPendingHolders, checkVersion } from './manifest/version-checks.js';
import type { StoredPackage } from '../../image-host/package-answer.js';
import { versionRowOf, versionStatusOf, type VersionRow, type VersionStatus } from './records.js';
import { bytesRemoved, markBytesRemoved } from './removed-bytes.js';
import { couldBeVersion } from './version-number.js';

// The writes of plugin versions, each in one transaction holding the plugin's row
// lock (plugin-state.ts), which every edit and review of the plugin takes first:
// a new version, a withdrawal and a removal take turns with them, so what a review
// compared (`revision`) is what it decides.

export const versionTaken = () =>
  new HttpError(
    409,
    'CONFLICT',
    'This plugin already has (or had) a version with this number, or an upload of it is in progress; version numbers are never reused',
    { field: 'version' },
  );

/** Locks plugin `id` (any case) for `user`: 404 when hidden from them, 403 when visible but not theirs. */
const lockForVersions = (t: Sql, id: string, user: SessionUser): Promise<LockedPlugin> =>
  lockOwnPlugin(t, id, user, 'Only the plugin\'s author (or an administrator) can change its versions');

/**
 * Before the file streams: 404 / 403 for the plugin, 409 when the version number
 * was ever used or another upload holds it. The upload then holds the number
 * (reserveVersion) before its file is kept; insertVersion decides a last time,
 * atomically.
 */
export async function checkVersionFree(sql: Sql, id: string, user: SessionUser, version: string | null): Promise<string> {
  return inTransaction(sql, async (t) => {
    const plugin = await lockForVersions(t, id, user);
    if (version !== null) {
      const [row] = await runNamed(t, 'store/versions/version-taken', { plugin_id: plugin.id, version });
      // A select without from answers its one row always.
      if (row === undefined) throw new Error('store/versions/version-taken answered no row');
      if (row.taken) throw versionTaken();
    }
    return plugin.id;
  });
}

/**
 * How long an upload holds its version number between its last check and its
 * insert (reserveVersion), at most: the image host finishing a file of
 * PACKAGE_MAX_BYTES, to a bucket, within its client's own timeouts
 * (image-host/limits.ts). A hold left by a process that ended meanwhile keeps the
 * number from other uploads for this long.
 */
export const VERSION_HOLD_SECONDS = 120;

/**
 * The last check before the image host is told a file is whole: 404 / 403 for the
 * plugin, 409 when the number was ever used or another upload holds it; else the
 * number is held for this upload (sql/007) until insertVersion takes it or
 * releaseVersion lets it go. Taken under the plugin's row lock, so two uploads of
 * one number cannot both hold it; the lock ends with this short transaction.
 */
export async function reserveVersion(sql: Sql, id: string, user: SessionUser, version: string): Promise<VersionHold> {
  return inTransaction(sql, async (t) => {
    const plugin = await lockForVersions(t, id, user);
    const [held] = await runNamed(t, 'store/versions/reserve-version', { plugin_id: plugin.id, version, hold_seconds: VERSION_HOLD_SECONDS });
    if (!held) throw versionTaken();
    return { pluginId: plugin.id, version, heldUntil: held.held_until };
  });
}

/** A number an upload holds (reserveVersion); `heldUntil` tells it from a later hold of the same number. */
export interface VersionHold {
  pluginId: string;
  version: string;
  heldUntil: string;
}

/** Lets go of a number an upload held and did not insert (its file refused, its client gone); a later hold of it stays. */
export async function releaseVersion(sql: Sql, hold: VersionHold): Promise<void> {
  await runNamed(sql, 'store/versions/release-version', { plugin_id: hold.pluginId, version: hold.version, held_until: hold.heldUntil });
}

/**
 * Inserts the pending version and makes it what the plugin proposes: for an approved
 * plugin, its pending update's version, download and sha256 (merged with the other
 * pending changes, reviewed like any update); for a plugin not yet approved, the
 * plugin's own (a rejected plugin reopens, as an author's edit does). Either write
 * changes the plugin's revision. The version keeps its manifest (`read`) and the
 * checks computed here, under the plugin's lock and the blocklist's shared lock; a
 * `block` check refuses it (400 field "file").
 */
export function insertVersion(
  sql: Sql,
  id: string,
  user: SessionUser,
  input: { version: string; changelog: string },
  stored: StoredPackage,
  read: ReadManifest,
): Promise<VersionRow> {
  return inTransaction(sql, (t) => insertVersionIn(t, id, user, input, stored, read));
}

/** insertVersion inside the caller's transaction `t` (a new plugin and its first version are written in one). */
export async function insertVersionIn(
  t: Sql,
  id: string,
  user: SessionUser,
  input: { version: string; changelog: string },
  stored: StoredPackage,
  read: ReadManifest,
): Promise<VersionRow> {
  const plugin = await lockForVersions(t, id, user);
  // The image host refuses removed bytes too, but a removal may land between its check and this insert.
  if (await bytesRemoved(t, stored.sha256)) throw removedFile();
  // A removal blocking files waits for this insert, then gives it the check itself (blockPendingHolders).
  await runNamed(t, 'store/versions/lock-blocklist-shared', {});
  const blocked = await blockedAmong(t, stored.report.files);
  const checked = await checkVersion(t, plugin, read, stored.report.findings, blocked);
  if (isBlocked(checked.checks)) throw new RefusedByChecks(checked.checks);
  const [inserted] = await runNamed(t, 'store/versions/insert-version', {
    plugin_id: plugin.id, version: input.version, changelog: input.changelog, sha256: stored.sha256,
    size: stored.size, download: stored.download, entry_count: stored.entryCount, files_json: JSON.stringify(stored.entries),
    manifest_json: JSON.stringify(checked.manifest), manifest_source_json: JSON.stringify(stored.report.manifest),
    findings_json: JSON.stringify(stored.report.findings), permissions_json: JSON.stringify(checked.permissions),
    checks_json: JSON.stringify(checked.checks), entry_kind: checked.entryKind,
  });
  if (!inserted) throw versionTaken();
  await runNamed(t, 'store/versions/insert-version-files', {
    plugin_id: plugin.id, version: input.version,
    names: stored.report.files.map((file) => file.name), hashes: stored.report.files.map((file) => file.sha256),
  });
  // The number goes from held (reserveVersion) to used in this transaction: whoever
  // held it, no upload can use it now.
  await runNamed(t, 'store/versions/end-version-holds', { plugin_id: plugin.id, version: input.version });
  // The store's edit queries, with only version, download and sha256 changed.
  const params = {
    plugin_id: plugin.id,
    changed_fields: ['download', 'sha256', 'version'],
    name: null, version: input.version, author: null, description: null, long_description: null,
    download: stored.download, sha256: stored.sha256,
    url: null, icon: null, tags: null, permissions: null, screenshots_json: null,
  };
  if (plugin.status === 'approved') await runNamed(t, 'store/merge-pending-update', params);
  else await runNamed(t, 'store/apply-plugin-edit', { ...params, featured: null, reopen: plugin.status === 'rejected' });
  return versionRowOf(inserted);
}

/** 400 field "file" for a version with a `block` check (the upload route then has the image host delete the file). */
export class RefusedByChecks extends HttpError {
  constructor(checks: Check[]) {
    // The first block's message: it names the file and the kind, never a secret.
    const blocks = checks.filter((check) => check.level === 'block');
    const more = blocks.length > 1 ? ` (and ${blocks.length - 1} more ${blocks.length === 2 ? 'problem' : 'problems'})` : '';
    super(400, 'VALIDATION_FAILED', `Not an acceptable package: ${blocks[0]!.message}${more}`, { field: 'file' });
  }
}

/** What a withdrawal or removal did, for the route's answer. */
export interface TakenOff {
  pluginId: string;
  version: string;
  sha256: string;
  /** The plugin's live version after it (null when the plugin was taken down). */
  live: string | null;
  /** It was already off (removed, or withdrawn again): nothing changed. */
  already?: boolean;
  /** The bytes are removed (sql/007): the image host is to delete the file. */
  bytesRemoved: boolean;
}

/**
 * Withdraws (owner or administrator) or removes (administrator, `removed`) version
 * `version` of plugin `id`. It leaves the pending update that proposes it, and the
 * visitors' history. When it is what the plugin carries (live, or the submission of a
 * plugin not yet approved), the plugin goes back to its newest earlier approved
 * version; when there is none, the plugin leaves the store (rejected with the reason;
 * its author told, unless the withdrawal is theirs) until a new version is approved.
 */
export async function takeVersionOff(
  sql: Sql,
  id: string,
  version: string,
  user: SessionUser,
  to: Extract<VersionStatus, 'withdrawn' | 'removed'>,
): Promise<TakenOff> {
  return inTransaction(sql, async (t) => {
    const plugin = await lockForVersions(t, id, user);
    const [found] = couldBeVersion(version)
      ? await runNamed(t, 'store/versions/lock-version', { plugin_id: plugin.id, version })
      : [];
    // An author sees all their versions; nothing else to hide.
    if (!found) throw new HttpError(404, 'NOT_FOUND', 'Version not found');
    const status = versionStatusOf(found.status);
    if (status === 'removed' || (status === 'withdrawn' && to === 'withdrawn')) {
      // A removal asked again repeats the image host's deletion (after a 502, say) when the bytes are removed.
      const bytesRemoved = to === 'removed' && (await runNamed(t, 'store/versions/bytes-removed', { sha256: found.sha256 })).some((row) => row.removed);
      return { pluginId: plugin.id, version: found.version, sha256: found.sha256, live: null, already: true, bytesRemoved };
    }
    const [state] = await runNamed(t, 'store/versions/plugin-state', { plugin_id: plugin.id });
    // The plugin is locked, so its row is there.
    if (state === undefined) throw new Error(`store/versions/plugin-state: the locked plugin ${plugin.id} has no row`);
    await runNamed(t, 'store/versions/drop-from-pending-update', { plugin_id: plugin.id, version: found.version });
    let live: string | null = state.version;
    const carried = state.version === found.version && state.download === found.download && state.sha256 === found.sha256;
    if (carried) live = await goBackFrom(t, plugin, found.version);
    await runNamed(t, 'store/versions/set-status', { plugin_id: plugin.id, version: found.version, status: to });
    const bytesRemoved = to === 'removed' && (await markBytesRemoved(t, plugin.id, found.version, found.sha256));
    if (to === 'removed') await blockFilesOf(t, plugin.id, found.version);
    if (carried && live === null) {
      // Nothing approved to go back to: the plugin leaves the store (rejected with the
      // reason) until a new version is approved.
      const by = to === 'removed' ? 'removed by an administrator' : user.id === plugin.submitterId ? 'withdrawn by its author' : 'withdrawn by an administrator';
      const change = await unlistPlugin(t, plugin, `Version ${found.version} was ${by}`, user);
      if (user.admin) await recordAudit(t, { actor: user, action: 'review.unlist', target: { type: 'plugin', plugin: plugin.id }, ...change });
    }
    if (user.admin && (to === 'removed' || user.id !== plugin.submitterId)) {
      await recordAudit(t, {
        actor: user,
        action: to === 'removed' ? 'version.remove' : 'version.withdraw',
        target: { type: 'plugin', plugin: plugin.id },
        before: { version: found.version, status, live: state.version },
        after: { version: found.version, status: to, live },
      });
      await notify(t, {
        recipients: [plugin.submitterId],
        kind: 'update.rejected',
        plugin: plugin.id,
        actorId: user.id,
        message: `Version ${found.version} of your plugin ${plugin.id} was ${to} by an administrator`,
      });
    }
    return { pluginId: plugin.id, version: found.version, sha256: found.sha256, live, bytesRemoved };
  });
}

const removedFile = () => new HttpError(400, 'VALIDATION_FAILED', 'Not an acceptable package: an administrator removed this file', { field: 'file' });

/**
 * A version removed for malware: the bytes of each of its files are blocked (sql/007),
 * and every pending version holding one of them gets the blocked-file check, which
 * keeps it from going live. The blocklist's lock makes an upload in flight either
 * see the new entries or be inserted first, and then found here.
 */
async function blockFilesOf(t: Sql, pluginId: string, version: string): Promise<void> {
  await runNamed(t, 'store/versions/lock-blocklist', {});
  await runNamed(t, 'store/versions/block-files-of-removed', { plugin_id: pluginId, version });
  await blockPendingHolders(t, { pluginId, version });
}
