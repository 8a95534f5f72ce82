import { HttpError } from '../../../http/errors.js';
import type { Sql } from '../../../db/pool.js';
import { inTransaction, runNamed } from '../../../db/queries.js';
import type { StorePackageChecksForReviewRow } from '../../../db/query-rows.js';
import type { SessionUser } from '../context.js';
import { auditedPluginChange, recordAudit } from '../audit-log.js';
import { notify } from '../notifications/notify.js';
import { EDITABLE_FIELDS, type EditableField } from './records.js';
import type { PluginFields, ValidEdit } from './validation.js';
import { lockOwnPlugin, lockPlugin, settleVersionsAfterReview, syncLivePermissions, unlistPlugin } from './plugin-state.js';
import { PLUGIN_ID, pluginNotFound } from './visibility.js';

// Creating, editing and reviewing plugins: the states of docs/api.md "Edits and
// reviews". Every edit and review runs in a transaction holding the
// plugin's row lock (plugin-state.ts), so concurrent ones take turns and none is lost. What an
// administrator does (a review, an edit of another user's plugin, featured) is
// recorded in the audit log in the same transaction (src/services/site/audit).

export type ReviewAction = 'approve' | 'reject' | 'unlist';

/** A review as asked: `reason` required for unlist; `revision` null when not sent. */
export interface Review {
  action: ReviewAction;
  reason: string | null;
  revision: string | null;
}

/** Inserts a pending plugin; false when the id is taken (in any case). */
export async function insertPlugin(sql: Sql, submitter: SessionUser, plugin: { id: string; featured: boolean } & PluginFields): Promise<boolean> {
  const rows = await runNamed(sql, 'store/create-plugin', {
    id: plugin.id,
    submitter_id: submitter.id,
    name: plugin.name,
    version: plugin.version,
    author: plugin.author,
    description: plugin.description,
    long_description: plugin.longDescription,
    download: plugin.download,
    sha256: plugin.sha256,
    url: plugin.url,
    icon: plugin.icon,
    tags: plugin.tags,
    permissions: plugin.permissions,
    screenshots_json: JSON.stringify(plugin.screenshots),
    featured: plugin.featured,
  });
  return rows.length > 0;
}

/** What happened to an edit, for the caller's answer. */
export type EditOutcome = 'applied' | 'pending-update' | 'unchanged';

/**
 * PATCH: an administrator's edit applies at once and keeps the status; an author's
 * edit of a pending plugin applies, of a rejected one applies and reopens it, of an
 * approved one goes into the pending update. Returns the plugin's canonical id.
 */
export async function editPlugin(sql: Sql, id: string, editor: SessionUser, edit: ValidEdit): Promise<string> {
  if (!PLUGIN_ID.test(id)) throw pluginNotFound();
  return inTransaction(sql, async (t) => {
    // Another user's approved plugin is 403, a hidden one 404.
    const plugin = await lockOwnPlugin(t, id, editor, 'You can only edit your own plugins');

    const changed = EDITABLE_FIELDS.filter((field) => edit.fields[field] !== undefined);
    if (changed.length === 0 && edit.featured === undefined) return plugin.id;
    const params = editParams(plugin.id, changed, edit.fields);
    if (editor.admin && (plugin.submitterId !== editor.id || edit.featured !== undefined)) {
      await auditedPluginChange(t, { actor: editor, pluginId: plugin.id, action: editAction }, () =>
        runNamed(t, 'store/apply-plugin-edit', { ...params, featured: edit.featured ?? null, reopen: false }),
      );
    } else if (editor.admin) {
      await runNamed(t, 'store/apply-plugin-edit', { ...params, featured: edit.featured ?? null, reopen: false });
    } else if (plugin.status === 'approved') {
      await runNamed(t, 'store/merge-pending-update', params);
    } else {
      await runNamed(t, 'store/apply-plugin-edit', { ...params, featured: null, reopen: plugin.status === 'rejected' });
    }
    // An administrator's edit applies at once: a plugin serving a hosted version
    // keeps its manifest's permissions all the same (issue 31).
    if (plugin.status === 'approved' && editor.admin) await syncLivePermissions(t, plugin);
    return plugin.id;
  });
}

/**
 * Review: a plugin with a pending update has it applied (approve) or discarded
 * (reject), and stays approved. Without one, approve sets approved and reject sets
 * rejected (with the reason), from any status, so a rejected plugin can be approved
 * after all and an approved one taken down; only a review that would
 * change nothing (approve an approved plugin, reject a rejected one) has nothing to
 * review (409). `unlist` takes an approved plugin down whether or not an update
 * waits (plugin-state.ts), and discards the update.
 *
 * With `revision` (what the administrator's record showed), a review of a plugin or
 * pending update that changed since is refused (409, field revision) and changes
 * nothing: what an administrator approves is what goes live. The comparison and the
 * decision happen under the plugin's row lock, which every edit takes first.
 * Returns the canonical id.
 */
export async function reviewPlugin(sql: Sql, id: string, reviewer: SessionUser, review: Review): Promise<string> {
  if (!PLUGIN_ID.test(id)) throw pluginNotFound();
  const { action, reason } = review;
  return inTransaction(sql, async (t) => {
    const locked = await lockPlugin(t, id);
    if (!locked) throw pluginNotFound();
    const [state] = await runNamed(t, 'store/review-state', { plugin_id: locked.id });
    // The plugin is locked, so its row is there.
    if (state === undefined) throw new Error(`store/review-state: the locked plugin ${locked.id} has no row`);
    if (review.revision !== null && review.revision !== state.revision) {
      throw new HttpError(409, 'CONFLICT', 'The plugin changed since you read it: read it again and review what it is now', { field: 'revision' });
    }
    if (action === 'unlist') {
      if (locked.status !== 'approved') throw new HttpError(409, 'CONFLICT', `Only an approved plugin can be unlisted; this one is ${locked.status}`);
      const change = await unlistPlugin(t, locked, reason, reviewer);
      await recordAudit(t, { actor: reviewer, action: 'review.unlist', target: { type: 'plugin', plugin: locked.id }, ...change });
      return locked.id;
    }
    const hasUpdate = state.has_pending_update;
    const params = { plugin_id: locked.id, action, reason, reviewer_id: reviewer.id };
    if (!hasUpdate && locked.status === (action === 'approve' ? 'approved' : 'rejected')) {
      throw new HttpError(409, 'CONFLICT', `Nothing to review: the plugin is ${locked.status} and has no pending update`);
    }
    const subject = hasUpdate ? 'update' : 'review';
    const audit = { actor: reviewer, pluginId: locked.id, action: `${subject}.${action}` };
    // An outside link's check (package-checks/): a file known bad is never approved, one checked ok is pinned.
    const check = action === 'approve' ? await checkForApproval(t, locked.id) : undefined;
    await auditedPluginChange(t, audit, async () => {
      await runNamed(t, hasUpdate ? 'store/review-pending-update' : 'store/review-status', params);
      if (check?.status === 'ok' && check.sha256 !== null) {
        await runNamed(t, 'store/package-checks/pin', { plugin_id: locked.id, sha256: check.sha256, download: check.download });
      }
    });
    // Hosted versions follow: the one now live is approved, other pending ones rejected
    // (409 when what would go live was taken off).
    await settleVersionsAfterReview(t, locked, action);
    const decided = action === 'approve' ? 'approved' : 'rejected';
    const what = hasUpdate ? `The update of your plugin ${locked.id}` : `Your plugin ${locked.id}`;
    await notify(t, {
      recipients: [locked.submitterId],
      kind: `${subject}.${decided}`,
      plugin: locked.id,
      actorId: reviewer.id,
      message: `${what} was ${decided}${reason === null ? '' : `: ${reason}`}`,
    });
    return locked.id;
  });
}

/**
 * The package check of the download an approval would make live, if it is an
 * outside link: refused or mismatch is 409 CONFLICT on `download` (pending and
 * unreachable leave approval as it was, and the review page says so).
 */
async function checkForApproval(t: Sql, pluginId: string): Promise<StorePackageChecksForReviewRow | undefined> {
  const [check] = await runNamed(t, 'store/package-checks/for-review', { plugin_id: pluginId });
  if (check?.status === 'refused') {
    throw new HttpError(409, 'CONFLICT', 'The download was checked and refused: it cannot be approved (see packageCheck.reason)', { field: 'download' });
  }
  if (check?.status === 'mismatch') {
    throw new HttpError(409, 'CONFLICT', 'The downloaded file\'s SHA-256 is not the one the author gave: it cannot be approved', { field: 'download' });
  }
  return check;
}

/** An administrator's edit: `plugin.featured` when featured is all it changed, else `plugin.edit`. */
function editAction(_before: Record<string, unknown>, after: Record<string, unknown>): string {
  const keys = Object.keys(after);
  return keys.length === 1 && keys[0] === 'featured' ? 'plugin.featured' : 'plugin.edit';
}

/** The edit queries' parameters: the changed fields' names, and each field's new value (null when unchanged). */
function editParams(id: string, changed: EditableField[], fields: Partial<PluginFields>) {
  const value = <F extends EditableField>(field: F) => fields[field] ?? null;
  return {
    plugin_id: id,
    changed_fields: changed,
    name: value('name'),
    version: value('version'),
    author: value('author'),
    description: value('description'),
    long_description: value('longDescription'),
    download: value('download'),
    sha256: value('sha256'),
    url: value('url'),
    icon: value('icon'),
    tags: value('tags'),
    permissions: value('permissions'),
    screenshots_json: fields.screenshots === undefined ? null : JSON.stringify(fields.screenshots),
  };
}
