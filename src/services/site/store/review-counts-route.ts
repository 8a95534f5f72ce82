import { sendJson } from '../../../http/answer/index.js';
import { runQuery } from '../../../db/queries.js';
import type { SiteContext, SiteDeps } from '../context.js';

// GET /apps/api/review/counts (administrators): {success, pending, updates, reports},
// what each tab of the review page holds (status=pending, update=pending, open
// reports), in one round trip, so the page can say all three at once and again
// after every decision.

interface Counts {
  pending: number;
  updates: number;
  reports: number;
}

export function reviewCountsHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    const [counts] = await runQuery<Counts>(deps.sql, 'store/review-counts');
    sendJson(ctx, 200, { success: true, pending: counts!.pending, updates: counts!.updates, reports: counts!.reports }, { 'Cache-Control': 'no-store' });
  };
}
