import { HttpError, validationFailed } from '../../../http/errors.js';
import { sendJson } from '../../../http/answer/index.js';
import type { Sql } from '../../../db/pool.js';
import { inTransaction, runNamed } from '../../../db/queries.js';
import type { ReportsLockRow } from '../../../db/query-rows.js';
import { recordAudit, type AuditTarget, type Fields } from '../audit-log.js';
import { requireAdmin } from '../auth/guards.js';
import { couldBeUsername } from '../auth/usernames.js';
import type { SessionUser, SiteContext, SiteDeps } from '../context.js';
import { readRatingsPage } from '../ratings/ratings-reads.js';
import { findVisiblePlugin } from '../store/visibility.js';
import { lockPlugin, unlistPlugin } from '../store/plugin-state.js';
import { notify } from '../notifications/notify.js';
import { ratingNotFound } from './report-routes.js';
import { parseResolution, type Resolution } from './validation.js';

/** What a reporter is told about each resolution. */
const OUTCOMES: Record<Resolution, string> = {
  dismiss: 'dismissed, no action taken',
  'hide-rating': 'the rating is hidden',
  unlist: 'the plugin is unlisted',
};

const REPORT_ID = /^[1-9][0-9]{0,17}$/;
const reportNotFound = () => new HttpError(404, 'NOT_FOUND', 'Report not found');

/**
 * POST /apps/api/reports/:id/resolve {action: dismiss | hide-rating | unlist, reason?}
 * (administrators): resolves every open report of the report's target with the
 * action, in one transaction with the action itself and its audit entry.
 * hide-rating hides the reported rating (a report of a plugin has none: 400);
 * unlist makes the plugin rejected with the reason, as a review would, and discards
 * its pending update (store/plugin-state.ts). 409 when the report is already resolved.
 */
export function resolveReportHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    const admin = requireAdmin(ctx);
    const { action, reason } = parseResolution(ctx.body);
    const id = ctx.params.id!;
    if (!REPORT_ID.test(id)) throw reportNotFound();
    const outcome = await inTransaction(deps.sql, async (tx) => {
      const [report] = await runNamed(tx, 'reports/lock', { report_id: id });
      if (!report) throw reportNotFound();
      if (report.status !== 'open') throw new HttpError(409, 'CONFLICT', 'This report is already resolved');
      if (action === 'hide-rating' && report.target_type !== 'rating') throw validationFailed('action', 'hide-rating resolves reports of ratings only');
      const change = await applyResolution(tx, report, action, reason, admin);
      const resolved = await runNamed(tx, 'reports/resolve-target', {
        plugin_id: report.plugin_id,
        rating_user_id: report.rating_user_id,
        resolution: action,
        reason,
        admin_id: admin.id,
      });
      const target = targetOf(report);
      const what = target.type === 'rating' ? `${target.user}'s rating of ${report.plugin_id}` : `the plugin ${report.plugin_id}`;
      await notify(tx, {
        recipients: resolved.map((row) => row.reporter_id),
        kind: 'report.resolved',
        plugin: report.plugin_id,
        actorId: admin.id,
        message: `Your report of ${what} was resolved: ${OUTCOMES[action]}${reason === null ? '' : ` (${reason})`}`,
      });
      const reports = resolved.map((row) => Number(row.id));
      await recordAudit(tx, {
        actor: admin,
        action: `report.${action}`,
        target,
        before: { ...change.before, reports, reportStatus: 'open' },
        after: { ...change.after, reports, reportStatus: 'resolved', ...(reason === null ? {} : { reason }) },
      });
      return { report, target, reports };
    });
    sendJson(
      ctx,
      200,
      {
        success: true,
        report: {
          id: Number(outcome.report.id),
          target: outcome.target,
          reason: outcome.report.reason,
          note: outcome.report.note,
          status: 'resolved',
          resolution: action,
          resolutionReason: reason,
          createdAt: outcome.report.created_at.toISOString(),
        },
        resolved: outcome.reports,
      },
      { 'Cache-Control': 'no-store' },
    );
  };
}

async function applyResolution(tx: Sql, report: ReportsLockRow, action: Resolution, reason: string | null, admin: SessionUser): Promise<{ before: Fields; after: Fields }> {
  if (action === 'hide-rating') {
    // Recorded even when the rating was deleted since it was reported: it comes back hidden.
    const [row] = await runNamed(tx, 'reports/set-rating-hidden', { plugin_id: report.plugin_id, rating_user_id: report.rating_user_id, hidden: true, admin_id: admin.id });
    // Hiding answers one row always (sql/003_ratings.sql, set_rating_hidden).
    if (row === undefined) throw new Error(`set_rating_hidden answered no row hiding a rating of ${report.plugin_id}`);
    return { before: { hidden: row.was_hidden }, after: { hidden: true } };
  }
  if (action === 'unlist') {
    const locked = await lockPlugin(tx, report.plugin_id);
    if (!locked || locked.status === 'rejected') return { before: {}, after: {} };
    // Rejected with the reason, its pending update discarded, its author told.
    return unlistPlugin(tx, locked, reason, admin);
  }
  return { before: {}, after: {} };
}

/** What a report is about, as the audit log names it. */
function targetOf(report: ReportsLockRow): AuditTarget {
  if (report.target_type !== 'rating') return { type: 'plugin', plugin: report.plugin_id };
  // A report of a rating has its rater (a check of reports; deleting the rater deletes the report).
  if (report.rating_user === null) throw new Error(`report ${report.id} of a rating has no rater`);
  return { type: 'rating', plugin: report.plugin_id, user: report.rating_user };
}

/**
 * POST /apps/api/plugins/:id/ratings/:ratingUser/unhide (administrators): shows a
 * rating a report's resolution hid; it is back in the lists and the statistics at
 * once, and the rater's next ratings are shown too. {success, avg, count,
 * distribution}; 404 when the rater has neither a rating nor a moderation record.
 */
export function unhideRatingHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    const admin = requireAdmin(ctx);
    const plugin = await findVisiblePlugin(deps.sql, ctx.params.id!, admin);
    const ratingUser = ctx.params.ratingUser!;
    if (!couldBeUsername(ratingUser)) throw ratingNotFound();
    const stats = await inTransaction(deps.sql, async (tx) => {
      const [rater] = await runNamed(tx, 'reports/find-rater', { username: ratingUser });
      const [row] = rater ? await runNamed(tx, 'reports/set-rating-hidden', { plugin_id: plugin.id, rating_user_id: rater.id, hidden: false, admin_id: admin.id }) : [];
      if (!rater || !row) throw ratingNotFound();
      if (row.was_hidden) {
        await recordAudit(tx, { actor: admin, action: 'rating.unhide', target: { type: 'rating', plugin: plugin.id, user: rater.username }, before: { hidden: true }, after: { hidden: false } });
      }
      return (await readRatingsPage(tx, plugin.id, { limit: 0, offset: 0, viewerId: null })).stats;
    });
    sendJson(ctx, 200, { success: true, ...stats }, { 'Cache-Control': 'no-store' });
  };
}

