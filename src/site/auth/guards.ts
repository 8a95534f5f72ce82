import { HttpError } from '../../core/errors.js';
import { getCookie } from '../../core/middleware/cookies.js';
import type { Next } from '../../core/context.js';
import type { SessionUser, SiteContext, SiteDeps, SiteMiddleware } from '../context.js';
import { clearSessionCookie, sessionCookieName } from './cookies.js';
import { findSession, isWellFormedToken } from './sessions.js';

// How a route says what it needs of the caller. A route that reads the user puts
// one of these in its `use`; the session cookie is resolved there (and only there:
// /api/info, static files and the probes never touch the database for a cookie),
// and the user is then in ctx.locals.user for its handler, where requireUser /
// requireAdmin read it.

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
  /** Resolves the caller's user when there is one (ctx.locals.user, else null); never refuses. */
  withUser: SiteMiddleware;
  /** 401 before the body is read when nobody is logged in. */
  userRequired: SiteMiddleware;
  /** 401 / 403 before the body is read unless an administrator is logged in. */
  adminRequired: SiteMiddleware;
}

/**
 * Requests whose session is already resolved, so a route that stacks guards (or a
 * feature's middleware and a route's guard) costs one lookup, not one each. Shared
 * by every createGuards() of the process: the cookie means the same to all.
 */
const resolved = new WeakSet<SiteContext>();

/**
 * The route middleware of the site's access rules, e.g.
 * `{ method: 'POST', path: '/apps/api/plugins', use: [guards.userRequired, jsonBody()], handler }`.
 */
export function createGuards(deps: SiteDeps): Guards {
  const cookieName = sessionCookieName(deps.config);

  // No cookie (or one that cannot be a token): no query. A cookie that names no
  // live session is cleared, so the browser stops sending it.
  const lookUp = async (ctx: SiteContext, token: string): Promise<void> => {
    const user = isWellFormedToken(token) ? await findSession(deps.sql, token) : null;
    resolved.add(ctx);
    if (user) ctx.locals.user = user;
    else clearSessionCookie(ctx.res, deps.config);
  };

  /** Then `after` runs; not an async function, so a request without a cookie makes no promise of its own. */
  const resolveThen = (ctx: SiteContext, after: () => unknown): unknown => {
    if (resolved.has(ctx)) return after();
    const token = getCookie(ctx.req, cookieName);
    if (token === undefined) {
      resolved.add(ctx);
      return after();
    }
    return lookUp(ctx, token).then(after);
  };

  const withUser: SiteMiddleware = (ctx, next: Next) => resolveThen(ctx, next);
  const userRequired: SiteMiddleware = (ctx, next: Next) =>
    resolveThen(ctx, () => {
      requireUser(ctx);
      return next();
    });
  const adminRequired: SiteMiddleware = (ctx, next: Next) =>
    resolveThen(ctx, () => {
      requireAdmin(ctx);
      return next();
    });
  return { withUser, userRequired, adminRequired };
}
