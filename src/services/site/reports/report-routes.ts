import { HttpError } from '../../../http/errors.js';
import { integerParam, singleParam } from '../../../http/query-params.js';
import { rateLimited } from '../../../http/rate-limited.js';
import { sendJson } from '../../../http/answer/index.js';
import { runNamed } from '../../../db/queries.js';
import type { ReportsFindRatingRow } from '../../../db/query-rows.js';
import { createSharedRateLimiter } from '../../../db/shared-rate-limiter.js';
import { requireAdmin, requireUser } from '../auth/guards.js';
import type { SiteContext, SiteDeps } from '../context.js';
import { findVisiblePlugin } from '../store/visibility.js';
import { parseReport } from './validation.js';
import { badRequest } from '../../../http/errors.js';

/** Reports one user may file per day, over all targets (the shared limiter, so every process agrees). */
export const REPORTS_PER_DAY = 10;
export const DEFAULT_REPORTS_LIMIT = 50;
export const MAX_REPORTS_LIMIT = 200;
const STATUSES = ['open', 'resolved'] as const;

export const ratingNotFound = () => new HttpError(404, 'NOT_FOUND', 'Rating not found');

/**
 * POST /apps/api/reports {target, reason, note}: 201 {success, report}. The target
 * must be visible to the reporter (404 otherwise, a rating too, and a hidden one
 * to all but its rater and administrators); a second open
 * report of one target by one user is 409; past REPORTS_PER_DAY a day, 429.
 */
export function createReportHandler(deps: SiteDeps) {
  const limiter = createSharedRateLimiter(deps.sql, { name: 'reports', limit: REPORTS_PER_DAY, windowMs: 24 * 60 * 60 * 1000 });
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    const input = parseReport(ctx.body);
    const plugin = await findVisiblePlugin(deps.sql, input.plugin, user);
    let rater: ReportsFindRatingRow | undefined;
    if (input.ratingUser !== null) {
      [rater] = await runNamed(deps.sql, 'reports/find-rating', { plugin_id: plugin.id, username: input.ratingUser });
      // A hidden rating is there for its rater and administrators only.
      if (!rater || (rater.hidden && rater.user_id !== user.id && !user.admin)) throw ratingNotFound();
    }
    const decision = await limiter.hit(user.id);
    if (!decision.allowed) throw rateLimited(decision, `At most ${REPORTS_PER_DAY} reports a day; try again later`);
    const [row] = await runNamed(deps.sql, 'reports/create', {
      reporter_id: user.id,
      plugin_id: plugin.id,
      rating_user_id: rater?.user_id ?? null,
      reason: input.reason,
      note: input.note,
    });
    if (!row) {
      // Not a new report: it does not use up the day's allowance.
      await limiter.refund(user.id);
      throw new HttpError(409, 'CONFLICT', 'You already have an open report of this target');
    }
    const target = rater ? { type: 'rating', plugin: plugin.id, user: rater.username } : { type: 'plugin', plugin: plugin.id };
    sendJson(
      ctx,
      201,
      { success: true, report: { id: Number(row.id), target, reason: input.reason, note: input.note, status: row.status, createdAt: row.created_at.toISOString() } },
      { 'Cache-Control': 'no-store' },
    );
  };
}

interface StoredReport {
  id: number;
  target_type: 'plugin' | 'rating';
  plugin_id: string;
  rating_user: string | null;
  reporter: string;
  reason: string;
  note: string;
  status: string;
  resolution: string | null;
  resolution_reason: string | null;
  created_at: string;
  resolved_at: string | null;
  target_count: number;
}

/**
 * GET /apps/api/reports?status=open|resolved&limit&offset (administrators):
 * {success, reports, total}, grouped by target with each target's report count.
 */
export function listReportsHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    requireAdmin(ctx);
    const status = singleParam(ctx.query, 'status') ?? 'open';
    if (!(STATUSES as readonly string[]).includes(status)) throw badRequest(`status must be one of ${STATUSES.join(', ')}`, 'status');
    const limit = integerParam(ctx.query, 'limit', { fallback: DEFAULT_REPORTS_LIMIT, min: 1, max: MAX_REPORTS_LIMIT });
    const offset = integerParam(ctx.query, 'offset', { fallback: 0, min: 0, max: 1_000_000 });
    const [row] = await runNamed(deps.sql, 'reports/page', { status, limit, offset });
    const reports = (JSON.parse(row!.reports) as StoredReport[]).map((report) => ({
      id: report.id,
      target: report.target_type === 'rating' ? { type: 'rating', plugin: report.plugin_id, user: report.rating_user } : { type: 'plugin', plugin: report.plugin_id },
      reporter: report.reporter,
      reason: report.reason,
      note: report.note,
      status: report.status,
      resolution: report.resolution,
      resolutionReason: report.resolution_reason,
      targetReports: report.target_count,
      createdAt: new Date(report.created_at).toISOString(),
      resolvedAt: report.resolved_at === null ? null : new Date(report.resolved_at).toISOString(),
    }));
    sendJson(ctx, 200, { success: true, reports, total: Number(row!.total) }, { 'Cache-Control': 'no-store' });
  };
}
