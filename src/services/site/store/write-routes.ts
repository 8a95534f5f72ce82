import { HttpError, validationFailed } from '../../../http/errors.js';
import { objectBody } from '../../../http/json-body.js';
import { sendOk } from '../../../http/answer/index.js';
import type { SiteContext, SiteDeps } from '../context.js';
import { requireAdmin, requireUser } from '../auth/guards.js';
import { imageLinkRule } from './image-links.js';
import { findPluginRecord } from './plugin-reads.js';
import { editPlugin, insertPlugin, reviewPlugin, type Review } from './plugin-writes.js';
import { pluginRecord } from './records.js';
import { text } from '../text-rules.js';
import { validateEdit, validateNewPlugin } from './validation.js';
import { runNamed } from '../../../db/queries.js';
import { requireDownloadHost, requireKnownHostedDownload } from './download-hosts.js';
import { addPackageCheck, findPackageCheck } from './package-checks/check-record.js';
import { isOwnerOrAdmin } from './visibility.js';

/** Longest review reason kept (the database holds the same limit). */
export const MAX_REVIEW_REASON = 1000;

/** POST /apps/api/plugins: 201 {success, plugin}, pending, submitted by the session user. */
export function createHandler(deps: SiteDeps) {
  const images = imageLinkRule(deps.config);
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    const plugin = validateNewPlugin(ctx.body, user.admin, images);
    requireDownloadHost(plugin.download, deps.config.downloadHosts);
    // A new plugin has no version yet: no package on the image host is its own.
    await requireKnownHostedDownload(plugin.download, deps.config.imageHostPublicUrl, async () => false);
    if (!(await insertPlugin(deps.sql, user, plugin))) {
      throw new HttpError(409, 'CONFLICT', 'A plugin with this id already exists', { field: 'id' });
    }
    await answerWithRecord(ctx, deps, plugin.id, 201);
  };
}

/** PATCH /apps/api/plugins/:id: {success, plugin}, the record after the edit. */
export function editHandler(deps: SiteDeps) {
  const images = imageLinkRule(deps.config);
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    const edit = validateEdit(ctx.body, user.admin, images, ctx.params.id);
    requireDownloadHost(edit.fields.download, deps.config.downloadHosts);
    await requireKnownHostedDownload(edit.fields.download, deps.config.imageHostPublicUrl, async (download) => {
      const [row] = await runNamed(deps.sql, 'store/versions/hosted-download-known', { plugin_id: ctx.params.id!, download });
      return row?.known === true;
    });
    const id = await editPlugin(deps.sql, ctx.params.id!, user, edit);
    await answerWithRecord(ctx, deps, id, 200);
  };
}

/** Longest revision a review may name (the ones handed out are decimal numbers). */
const MAX_REVISION = 64;

/** POST /apps/api/plugins/:id/review {action, reason?, revision?}: {success, plugin}. */
export function reviewHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    const admin = requireAdmin(ctx);
    const id = await reviewPlugin(deps.sql, ctx.params.id!, admin, reviewInput(ctx.body));
    await answerWithRecord(ctx, deps, id, 200);
  };
}

/**
 * approve or reject (optional reason), or unlist (reason required); `revision`
 * optional (null or absent: not checked, as reviews always were), any other string is compared.
 */
function reviewInput(body: unknown): Review {
  const { action, reason, revision } = objectBody(body, 'with action, reason and revision');
  if (action !== 'approve' && action !== 'reject' && action !== 'unlist') {
    throw validationFailed('action', 'action must be "approve", "reject" or "unlist"');
  }
  const given = revision === undefined || revision === null ? null : text('revision', revision, 1, MAX_REVISION);
  const trimmed = reason === undefined || reason === null ? '' : text('reason', reason, 0, MAX_REVIEW_REASON).trim();
  if (action === 'unlist' && trimmed === '') throw validationFailed('reason', 'unlist needs a reason (shown to the author)');
  return { action, reason: trimmed === '' ? null : trimmed, revision: given };
}

async function answerWithRecord(ctx: SiteContext, deps: SiteDeps, id: string, status: number): Promise<void> {
  const row = await findPluginRecord(deps.sql, id);
  // Written just now by this caller, who may see it; gone only if deleted meanwhile.
  if (!row) throw new HttpError(404, 'NOT_FOUND', 'Plugin not found');
  const plugin = pluginRecord(row, ctx.locals.user);
  const full = isOwnerOrAdmin({ id: row.id, status: row.status, submitterId: String(row.submitter_id) }, ctx.locals.user);
  addPackageCheck(plugin, await findPackageCheck(deps.sql, row.id), full);
  sendOk(ctx, { plugin }, status);
}
