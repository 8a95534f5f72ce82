import type { Feature } from '../../core/feature.js';
import { jsonBody } from '../../core/middleware/json-body.js';
import { createGuards } from '../auth/guards.js';
import type { SiteDeps, SiteLocals } from '../context.js';
import { ratingsPageHandler } from './page-route.js';
import { rateHandler, unrateHandler } from './rating-routes.js';
import { createReplyHandler, deleteReplyHandler } from './reply-routes.js';

/**
 * Ratings of plugins and replies to them. Every route finds its plugin through
 * findVisiblePlugin (src/site/plugins/visibility.ts): 404 for what the caller may
 * not see. The cross-site check of state-changing requests runs before any of
 * these (the auth feature's middleware).
 */
export function ratingsFeature(deps: SiteDeps): Feature<SiteLocals> {
  const guards = createGuards(deps);
  const ratings = '/apps/api/plugins/:id/ratings';
  return {
    routes: [
      { method: 'GET', path: ratings, use: [guards.withUser], handler: ratingsPageHandler(deps) },
      { method: 'PUT', path: ratings, use: [guards.userRequired, jsonBody()], handler: rateHandler(deps) },
      { method: 'DELETE', path: ratings, use: [guards.userRequired], handler: unrateHandler(deps) },
      { method: 'POST', path: `${ratings}/:ratingUser/replies`, use: [guards.userRequired, jsonBody()], handler: createReplyHandler(deps) },
      { method: 'DELETE', path: `${ratings}/replies/:replyId`, use: [guards.userRequired], handler: deleteReplyHandler(deps) },
    ],
  };
}
