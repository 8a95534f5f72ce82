import { badRequest } from '../../../http/errors.js';
import { singleParam } from '../../../http/query-params.js';
import { sendJson } from '../../../http/answer/index.js';
import { runNamed } from '../../../db/queries.js';
import type { Sql } from '../../../db/pool.js';
import type { SiteContext, SiteDeps } from '../context.js';
import { listVisibility, PLUGIN_ID, pluginNotFound, type Viewer } from '../store/visibility.js';

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

export interface InstallSeries {
  id: string;
  days: Array<{ date: string; installs: number }>;
  total: number;
}

/**
 * The series of the plugins `ids` (lower case, each a PLUGIN_ID) over the last
 * `window` days that `viewer` may see, in one query (sql/queries/stats/install-days-many.sql),
 * keyed by lower-case id; a plugin the viewer may not see, or that does not exist, is absent.
 * The one query of both the single and the batch route.
 */
export async function installSeries(sql: Sql, ids: string[], viewer: Viewer, window: number): Promise<Map<string, InstallSeries>> {
  const { viewerId, seesAll } = listVisibility(viewer);
  const rows = await runNamed(sql, 'stats/install-days-many', { plugin_ids: ids, viewer_id: viewerId, sees_all: seesAll, days: window });
  return new Map(
    rows.map((row) => {
      const days = row.dates.map((date, i) => ({ date, installs: row.installs[i]! }));
      return [row.id.toLowerCase(), { id: row.id, days, total: row.installs.reduce((sum, n) => sum + n, 0) }];
    }),
  );
}

/**
 * GET /apps/api/plugins/:id/stats?days=30|90|365: {success, days: [{date, installs}],
 * total}, one entry per UTC day, oldest first, today included, 0 for a day without
 * installs; `total` is the window's sum. Visible to whoever may see the plugin
 * (404 otherwise). One query, visibility and series together.
 */
export function installStatsHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    const window = windowFrom(ctx.query);
    const id = ctx.params.id!;
    if (!PLUGIN_ID.test(id)) throw pluginNotFound();
    const series = (await installSeries(deps.sql, [id.toLowerCase()], ctx.locals.user, window)).get(id.toLowerCase());
    if (!series) throw pluginNotFound();
    // Hidden plugins are seen by their owner and administrators only: no shared cache may keep it.
    sendJson(ctx, 200, { success: true, days: series.days, total: series.total }, { 'Cache-Control': 'no-store' });
  };
}
