import { getCookie } from '../../core/middleware/cookies.js';
import type { Next } from '../../core/context.js';
import type { SiteContext, SiteDeps, SiteMiddleware } from '../context.js';
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
 *
 * Not an async function: it runs on every request, and most carry no cookie; only
 * a lookup needs a promise of its own.
 */
export function sessionMiddleware(deps: SiteDeps): SiteMiddleware {
  const name = sessionCookieName(deps.config);
  const resolve = async (ctx: SiteContext, token: string, next: Next): Promise<void> => {
    const user = isWellFormedToken(token) ? await findSession(deps.sql, token) : null;
    if (user) {
      ctx.locals.user = user;
      ctx.locals.sessionId = hashToken(token).toString('hex');
    } else {
      clearSessionCookie(ctx.res, deps.config);
    }
    return next();
  };
  return (ctx, next) => {
    if (isSessionless(ctx.path)) return next();
    const token = getCookie(ctx.req, name);
    if (token === undefined) return next();
    return resolve(ctx, token, next);
  };
}

function isSessionless(path: string): boolean {
  for (const prefix of SESSIONLESS_PREFIXES) {
    if (path.startsWith(prefix)) return true;
  }
  return false;
}
