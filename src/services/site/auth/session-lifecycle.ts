import { getCookie } from '../../../http/cookies.js';
import type { SessionUser, SiteContext, SiteDeps } from '../context.js';
import { clearSessionCookie, sessionCookieName, setSessionCookie } from './cookies.js';
import { createSession, deleteSession } from './sessions.js';

/**
 * Logs the user in on this browser: a fresh session and cookie. Any session the
 * browser already carried is ended first, so a cookie planted before the login
 * (session fixation) is worth nothing after it.
 */
export async function beginSession(ctx: SiteContext, deps: SiteDeps, user: SessionUser): Promise<void> {
  const previous = getCookie(ctx.req, sessionCookieName(deps.config));
  if (previous !== undefined) await deleteSession(deps.sql, previous);
  const token = await createSession(deps.sql, user.id);
  setSessionCookie(ctx.res, deps.config, token);
  ctx.locals.user = user;
}

/** Deletes the session row (whether or not it was still live) and clears the cookie. */
export async function endSession(ctx: SiteContext, deps: SiteDeps): Promise<void> {
  const token = getCookie(ctx.req, sessionCookieName(deps.config));
  if (token !== undefined) await deleteSession(deps.sql, token);
  clearSessionCookie(ctx.res, deps.config);
  ctx.locals.user = null;
}

/** What clients see of a user: never the internal id. */
export function publicUser(user: SessionUser): { username: string; avatar: string; admin: boolean } {
  return { username: user.username, avatar: user.avatar, admin: user.admin };
}
