import { sendJson } from '../../../http/answer/index.js';
import { runNamed } from '../../../db/queries.js';
import type { SiteContext, SiteDeps } from '../context.js';

// GET /apps/api/review/counts (administrators): {success, pending, updates, reports},
// what each tab of the review page holds (status=pending, update=pending, open
// reports), in one round trip, so the page can say all three at once and again
// after every decision.

export function reviewCountsHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    const [counts] = await runNamed(deps.sql, 'store/review-counts', {});
    // A select without from answers its one row always.
    if (counts === undefined) throw new Error('store/review-counts answered no row');
    sendJson(ctx, 200, { success: true, pending: counts.pending, updates: counts.updates, reports: counts.reports }, { 'Cache-Control': 'no-store' });
  };
}
