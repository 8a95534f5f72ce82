import { HttpError, validationFailed } from '../../core/errors.js';
import { objectBody } from '../../core/json-object.js';
import { sendOk } from '../../core/respond.js';
import type { SiteContext, SiteDeps } from '../context.js';
import { requireAdmin, requireUser } from '../auth/guards.js';
import { imageLinkRule } from './image-links.js';
import { findPluginRecord } from './plugin-reads.js';
import { editPlugin, insertPlugin, reviewPlugin, type ReviewAction } from './plugin-writes.js';
import { pluginRecord } from './records.js';
import { text } from './text-rules.js';
import { validateEdit, validateNewPlugin } from './validation.js';

/** Longest review reason kept (the database holds the same limit). */
export const MAX_REVIEW_REASON = 1000;

/** POST /apps/api/plugins: 201 {success, plugin}, pending, submitted by the session user. */
export function createHandler(deps: SiteDeps) {
  const images = imageLinkRule(deps.config);
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    const plugin = validateNewPlugin(ctx.body, user.admin, images);
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
    const id = await editPlugin(deps.sql, ctx.params.id!, user, edit);
    await answerWithRecord(ctx, deps, id, 200);
  };
}

/** POST /apps/api/plugins/:id/review {action, reason?}: {success, plugin}. */
export function reviewHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    const admin = requireAdmin(ctx);
    const { action, reason } = reviewInput(ctx.body);
    const id = await reviewPlugin(deps.sql, ctx.params.id!, admin, action, reason);
    await answerWithRecord(ctx, deps, id, 200);
  };
}

function reviewInput(body: unknown): { action: ReviewAction; reason: string | null } {
  const { action, reason } = objectBody(body, 'with action and reason');
  if (action !== 'approve' && action !== 'reject') throw validationFailed('action', 'action must be "approve" or "reject"');
  if (reason === undefined || reason === null) return { action, reason: null };
  const trimmed = text('reason', reason, 0, MAX_REVIEW_REASON).trim();
  return { action, reason: trimmed === '' ? null : trimmed };
}

async function answerWithRecord(ctx: SiteContext, deps: SiteDeps, id: string, status: number): Promise<void> {
  const row = await findPluginRecord(deps.sql, id);
  // Written just now by this caller, who may see it; gone only if deleted meanwhile.
  if (!row) throw new HttpError(404, 'NOT_FOUND', 'Plugin not found');
  sendOk(ctx, { plugin: pluginRecord(row, ctx.locals.user) }, status);
}
