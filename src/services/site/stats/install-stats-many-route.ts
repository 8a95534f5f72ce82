import { badRequest } from '../../../http/errors.js';
import { singleParam } from '../../../http/query-params.js';
import { sendJson } from '../../../http/answer/index.js';
import type { SiteContext, SiteDeps } from '../context.js';
import { PLUGIN_ID } from '../store/visibility.js';
import { installSeries, windowFrom } from './install-stats-route.js';

/** Most plugins one request may name: My plugins asks in pages of this many. */
export const MAX_STATS_IDS = 100;

/** `ids=a,b,c`: 1 to MAX_STATS_IDS plugin ids, repeated ones (in any case) once. */
function idsFrom(query: URLSearchParams): string[] {
  const value = singleParam(query, 'ids') ?? '';
  const ids = [...new Set(value.split(',').map((id) => id.trim().toLowerCase()).filter((id) => id !== ''))];
  if (ids.length === 0) throw badRequest('ids must name at least one plugin (ids=a,b,c)', 'ids');
  if (ids.length > MAX_STATS_IDS) throw badRequest(`ids may name at most ${MAX_STATS_IDS} plugins`, 'ids');
  if (!ids.every((id) => PLUGIN_ID.test(id))) throw badRequest('ids must be plugin ids separated by commas', 'ids');
  return ids;
}

/**
 * GET /apps/api/stats/installs?ids=a,b,c&days=30|90|365: {success, plugins: [{id,
 * days: [{date, installs}], total}]}, the series of GET /apps/api/plugins/:id/stats
 * for several plugins in one query (My plugins' sparklines). A plugin the caller may
 * not see, or that does not exist, is left out, as its own series would be a 404;
 * the others come in the order asked.
 */
export function installStatsManyHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    const ids = idsFrom(ctx.query);
    const window = windowFrom(ctx.query);
    const series = await installSeries(deps.sql, ids, ctx.locals.user, window);
    const plugins = ids.flatMap((asked) => series.get(asked) ?? []);
    // Hidden plugins are seen by their owner and administrators only: no shared cache may keep it.
    sendJson(ctx, 200, { success: true, plugins }, { 'Cache-Control': 'no-store' });
  };
}
