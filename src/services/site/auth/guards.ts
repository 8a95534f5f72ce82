import { HttpError } from '../../../http/errors.js';
import { getCookie } from '../../../http/cookies.js';
import { rateLimited } from '../../../http/rate-limited.js';
import type { Next } from '../../../http/context.js';
import { createSharedRateLimiter, type SharedRateLimiter } from '../../../db/shared-rate-limiter.js';
import type { SessionUser, SiteContext, SiteDeps, SiteMiddleware } from '../context.js';
import { TOKEN_REQUESTS_PER_WINDOW, TOKEN_WINDOW_MS } from './tokens/limits.js';
import type { TokenScope } from './tokens/scopes.js';
import { useToken } from './tokens/token-store.js';
import { clearSessionCookie, sessionCookieName } from './cookies.js';
import { bearerSecret } from './bearer.js';
import { createKeptSessions, KEPT_SESSIONS } from './kept-sessions.js';

// How a route says what it needs of the caller. A route that reads the user puts
// one of these in its `use`; the session cookie (or an API token, see below) is
// resolved there (and only there: /api/info, static files and the probes never
// touch the database for a cookie), and the user is then in ctx.locals.user for
// its handler, where requireUser / requireAdmin read it.
//
// Personal API tokens (src/services/site/auth/tokens) are an alternative to the cookie, sent as
// `Authorization: Bearer lwt_...`. A route accepts one only through
// `userOrToken(scope)`; every other guard answers 403 to a token, so a leaked
// token can publish plugins but never review, rate, reply or make more tokens.

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
  /** Resolves the caller's user when there is one (ctx.locals.user, else null); refuses only API tokens. */
  withUser: SiteMiddleware;
  /** 401 before the body is read when nobody is logged in; 403 to an API token. */
  userRequired: SiteMiddleware;
  /** 401 / 403 before the body is read unless an administrator is logged in (never through a token). */
  adminRequired: SiteMiddleware;
  /** Like userRequired, but also accepts an API token that carries `scope` (403 to one that does not). */
  userOrToken(scope: TokenScope): SiteMiddleware;
}

/**
 * Requests whose caller is already resolved, so a route that stacks guards (or a
 * feature's middleware and a route's guard) costs one lookup, not one each. Shared
 * by every createGuards() of the process (the site makes one, app.ts; tests may
 * make their own): the cookie means the same to all.
 */
const resolved = new WeakSet<SiteContext>();

const badToken = () => new HttpError(401, 'UNAUTHORIZED', 'Invalid, revoked or expired API token');
const tokenRefused = () => new HttpError(403, 'FORBIDDEN', 'This route does not accept API tokens; log in instead');

/**
 * The route middleware of the site's access rules, e.g.
 * `{ method: 'POST', path: '/apps/api/plugins', use: [guards.userOrToken('plugins:write'), jsonBody()], handler }`.
 */
export function createGuards(deps: SiteDeps): Guards {
  const cookieName = sessionCookieName(deps.config);
  let tokenLimiter: SharedRateLimiter | undefined;
  // Lookups kept per session generation: exact across processes (kept-sessions.ts).
  const sessions = createKeptSessions(deps.sql, KEPT_SESSIONS, deps.now);

  // No cookie (or one that cannot be a token): no query. A cookie that names no
  // live session is cleared, so the browser stops sending it.
  const lookUpSession = async (ctx: SiteContext, token: string): Promise<void> => {
    const user = await sessions.find(ctx, token);
    resolved.add(ctx);
    if (user) ctx.locals.user = user;
    else clearSessionCookie(ctx.res, deps.config);
  };

  // A token's user never acts as an administrator: a token carries its scopes and
  // nothing more, whoever owns it.
  const lookUpToken = async (ctx: SiteContext, secret: string): Promise<void> => {
    const found = await useToken(deps.sql, secret);
    if (!found) throw badToken();
    tokenLimiter ??= createSharedRateLimiter(deps.sql, { name: 'api-token', limit: TOKEN_REQUESTS_PER_WINDOW, windowMs: TOKEN_WINDOW_MS });
    const decision = await tokenLimiter.hit('user:' + found.user.id);
    if (!decision.allowed) throw rateLimited(decision, 'Too many requests with API tokens; try again later');
    resolved.add(ctx);
    ctx.locals.user = { ...found.user, admin: false };
    ctx.locals.apiToken = { id: found.tokenId, scopes: found.scopes };
  };

  /** Then `after` runs; not an async function, so a request without a cookie makes no promise of its own. */
  const resolveThen = (ctx: SiteContext, after: () => unknown): unknown => {
    if (resolved.has(ctx)) return after();
    const cookie = getCookie(ctx.req, cookieName);
    const secret = bearerSecret(ctx.req);
    if (secret !== undefined) {
      // Which of the two would speak for the caller is ambiguous: refuse both.
      if (cookie !== undefined) throw new HttpError(400, 'BAD_REQUEST', 'Send either an API token or the session cookie, not both');
      return lookUpToken(ctx, secret).then(after);
    }
    if (cookie === undefined) {
      resolved.add(ctx);
      return after();
    }
    return lookUpSession(ctx, cookie).then(after);
  };

  const sessionOnly = (ctx: SiteContext) => {
    if (ctx.locals.apiToken) throw tokenRefused();
  };

  const withUser: SiteMiddleware = (ctx, next: Next) =>
    resolveThen(ctx, () => {
      sessionOnly(ctx);
      return next();
    });
  const userRequired: SiteMiddleware = (ctx, next: Next) =>
    resolveThen(ctx, () => {
      sessionOnly(ctx);
      requireUser(ctx);
      return next();
    });
  const adminRequired: SiteMiddleware = (ctx, next: Next) =>
    resolveThen(ctx, () => {
      sessionOnly(ctx);
      requireAdmin(ctx);
      return next();
    });
  const userOrToken = (scope: TokenScope): SiteMiddleware => (ctx, next: Next) =>
    resolveThen(ctx, () => {
      const token = ctx.locals.apiToken;
      if (token && !token.scopes.includes(scope)) throw new HttpError(403, 'FORBIDDEN', `This API token lacks the ${scope} scope`);
      requireUser(ctx);
      return next();
    });
  return { withUser, userRequired, adminRequired, userOrToken };
}
