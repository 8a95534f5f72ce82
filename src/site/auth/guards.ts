import { HttpError } from '../../core/errors.js';
import type { SessionUser, SiteContext, SiteDeps, SiteMiddleware } from '../context.js';

// How a route says what it needs of the caller. A route that reads the user puts
// one of these in its `use`; the user is then in ctx.locals.user for its handler,
// where requireUser / requireAdmin read it.

export function requireUser(ctx: SiteContext): SessionUser {
  const user = ctx.locals.user;
  if (!user) throw new HttpError(401, 'UNAUTHORIZED', 'You need to log in first');
  return user;
}

export function requireAdmin(ctx: SiteContext): SessionUser {
  const user = requireUser(ctx);
  if (!user.admin) throw new HttpError(403, 'FORBIDDEN', 'Administrator rights are required');
  return user;
}

export interface Guards {
  /** The caller's user when there is one (ctx.locals.user, else null); never refuses. */
  withUser: SiteMiddleware;
  /** 401 before the body is read when nobody is logged in. */
  userRequired: SiteMiddleware;
  /** 401 / 403 before the body is read unless an administrator is logged in. */
  adminRequired: SiteMiddleware;
}

/**
 * The route middleware of the site's access rules, e.g.
 * `{ method: 'POST', path: '/apps/api/plugins', use: [guards.userRequired, jsonBody()], handler }`.
 */
export function createGuards(_deps: SiteDeps): Guards {
  // The session is resolved by the auth feature's middleware for now; these only
  // read what it left in ctx.locals.
  const withUser: SiteMiddleware = (_ctx, next) => next();
  const userRequired: SiteMiddleware = (ctx, next) => {
    requireUser(ctx);
    return next();
  };
  const adminRequired: SiteMiddleware = (ctx, next) => {
    requireAdmin(ctx);
    return next();
  };
  return { withUser, userRequired, adminRequired };
}
