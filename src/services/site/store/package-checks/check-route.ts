import { sendJson } from '../../../../http/answer/index.js';
import { runNamed } from '../../../../db/queries.js';
import type { SiteContext, SiteDeps } from '../../context.js';
import { PLUGIN_ID, pluginNotFound } from '../visibility.js';

/**
 * POST /apps/api/plugins/:id/package-check (administrators): the plugin's outside
 * link is checked again as soon as a worker is free; 202 {success: true}. 404 for
 * no such plugin, and for one whose download is hosted (nothing to fetch).
 */
export function requestCheckHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    const id = ctx.params.id!;
    const rows = PLUGIN_ID.test(id) ? await runNamed(deps.sql, 'store/package-checks/request', { plugin_id: id }) : [];
    if (rows.length === 0) throw pluginNotFound();
    sendJson(ctx, 202, { success: true });
  };
}
