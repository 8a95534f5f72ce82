import { getCookie } from '../../core/middleware/cookies.js';
import type { SiteDeps, SiteMiddleware } from '../context.js';
import { clearSessionCookie, sessionCookieName } from './cookies.js';
import { findSession, hashToken, isWellFormedToken } from './sessions.js';

/**
 * Paths that never look at the user: a page's static assets and the health probes
 * would otherwise cost one query each for every logged-in visitor.
 */
const SESSIONLESS_PREFIXES = ['/static/', '/healthz', '/readyz'];

/**
 * Resolves the session cookie once per request into ctx.locals.user / sessionId.
 * No cookie, no query. A cookie that names no live session is cleared, so the
 * browser stops sending it (and we stop looking it up).
 */
export function sessionMiddleware(deps: SiteDeps): SiteMiddleware {
  const name = sessionCookieName(deps.config);
  return async (ctx, next) => {
    if (SESSIONLESS_PREFIXES.some((prefix) => ctx.path.startsWith(prefix))) return next();
    const token = getCookie(ctx.req, name);
    if (token === undefined) return next();
    const user = isWellFormedToken(token) ? await findSession(deps.sql, token) : null;
    if (user) {
      ctx.locals.user = user;
      ctx.locals.sessionId = hashToken(token).toString('hex');
    } else {
      clearSessionCookie(ctx.res, deps.config);
    }
    return next();
  };
}
