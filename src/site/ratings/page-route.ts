import { sendJson } from '../../http/respond.js';
import type { SiteContext, SiteDeps } from '../context.js';
import { findVisiblePlugin } from '../store/visibility.js';
import { readRatingsPage } from './ratings-reads.js';
import { parsePageRequest } from './validation.js';

/**
 * GET /apps/api/plugins/:id/ratings?limit&offset: {success, avg, count,
 * distribution, ratings, limit, offset}, plus `myRating` (the caller's own rating
 * or null) for a logged-in caller; visitors get no `myRating` key at all. Two
 * queries whatever the page: the visibility check and the page.
 */
export function ratingsPageHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    const user = ctx.locals.user;
    const { limit, offset } = parsePageRequest(ctx.query);
    const plugin = await findVisiblePlugin(deps.sql, ctx.params.id!, user);
    const page = await readRatingsPage(deps.sql, plugin.id, { limit, offset, viewerId: user?.id ?? null });
    const body: Record<string, unknown> = { success: true, ...page.stats, ratings: page.ratings, limit, offset };
    if (user) body.myRating = page.mine;
    // The answer depends on the session (myRating, hidden plugins): no shared cache may keep it.
    sendJson(ctx, 200, body, { 'Cache-Control': 'no-store' });
  };
}
