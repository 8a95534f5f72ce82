import type { Feature } from '../../../http/feature.js';
import { jsonBody } from '../../../http/json-body.js';
import { createSharedRateLimiter } from '../../../db/shared-rate-limiter.js';
import type { Guards } from '../auth/guards.js';
import type { SiteDeps, SiteLocals } from '../context.js';
import { RATE_WINDOW_MS, RATING_WRITES_PER_MINUTE, REPLIES_PER_MINUTE } from './limits.js';
import { ratingsPageHandler } from './page-route.js';
import { rateHandler, unrateHandler } from './rating-routes.js';
import { createReplyHandler, deleteReplyHandler } from './reply-routes.js';

/**
 * Ratings of plugins and replies to them. Every route finds its plugin through
 * findVisiblePlugin (src/services/site/store/visibility.ts): 404 for what the caller may
 * not see. The cross-site check of state-changing requests runs before any of
 * these (the auth feature's middleware). Writes are limited per user in PostgreSQL:
 * rating, changing and deleting ratings share one count, replies have their own.
 */
export function ratingsFeature(deps: SiteDeps, guards: Guards): Feature<SiteLocals> {
  const writes = createSharedRateLimiter(deps.sql, { name: 'rating-writes', limit: RATING_WRITES_PER_MINUTE, windowMs: RATE_WINDOW_MS });
  const replies = createSharedRateLimiter(deps.sql, { name: 'rating-replies', limit: REPLIES_PER_MINUTE, windowMs: RATE_WINDOW_MS });
  return {
    routes: [
      { method: 'GET', path: '/apps/api/plugins/:id/ratings', use: [guards.withUser], handler: ratingsPageHandler(deps) },
      { method: 'PUT', path: '/apps/api/plugins/:id/ratings', use: [guards.userRequired, jsonBody()], handler: rateHandler(deps, writes) },
      { method: 'DELETE', path: '/apps/api/plugins/:id/ratings', use: [guards.userRequired], handler: unrateHandler(deps, writes) },
      { method: 'POST', path: '/apps/api/plugins/:id/ratings/:ratingUser/replies', use: [guards.userRequired, jsonBody()], handler: createReplyHandler(deps, replies) },
      { method: 'DELETE', path: '/apps/api/plugins/:id/ratings/replies/:replyId', use: [guards.userRequired], handler: deleteReplyHandler(deps) },
    ],
  };
}
