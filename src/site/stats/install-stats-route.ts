import { badRequest } from '../../core/errors.js';
import { singleParam } from '../../core/query-params.js';
import { sendJson } from '../../core/respond.js';
import { runQuery } from '../../db/queries.js';
import type { SiteContext, SiteDeps } from '../context.js';
import { findVisiblePlugin } from '../plugins/visibility.js';

/** The windows a series may cover, in days; anything else is 400 (a bounded answer, and cacheable shapes). */
export const STATS_WINDOWS = [30, 90, 365] as const;
const DEFAULT_WINDOW = 30;

export function windowFrom(query: URLSearchParams): number {
  const value = singleParam(query, 'days');
  if (value === undefined || value === '') return DEFAULT_WINDOW;
  const days = STATS_WINDOWS.find((window) => String(window) === value);
  if (days === undefined) throw badRequest(`days must be one of ${STATS_WINDOWS.join(', ')}`, 'days');
  return days;
}

/**
 * GET /apps/api/plugins/:id/stats?days=30|90|365: {success, days: [{date, installs}],
 * total}, one entry per UTC day, oldest first, today included, 0 for a day without
 * installs; `total` is the window's sum. Visible to whoever may see the plugin
 * (404 otherwise). Two queries: the visibility check and the series.
 */
export function installStatsHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    const window = windowFrom(ctx.query);
    const plugin = await findVisiblePlugin(deps.sql, ctx.params.id!, ctx.locals.user);
    const rows = await runQuery<{ date: string; installs: string }>(deps.sql, 'stats/install-days', [plugin.id, window]);
    let total = 0;
    const days = rows.map((row) => {
      const installs = Number(row.installs);
      total += installs;
      return { date: row.date, installs };
    });
    // Hidden plugins are seen by their owner and administrators only: no shared cache may keep it.
    sendJson(ctx, 200, { success: true, days, total }, { 'Cache-Control': 'no-store' });
  };
}
