import { HttpError } from '../../../http/errors.js';
import { redirect, sendJson, sendOk } from '../../../http/answer/index.js';
import type { SiteContext, SiteDeps, SiteHandler } from '../context.js';
import { isOwnTopLevelNavigation } from './navigation.js';
import { endSession, publicUser } from './session-lifecycle.js';

/** Where a browser lands after GET /apps/auth/logout: the plugin store. */
export const AFTER_LOGOUT = '/apps/';

/** GET /apps/api/me, POST /apps/auth/logout, GET /apps/auth/logout (feature.ts). */
export function sessionHandlers(deps: SiteDeps): { me: SiteHandler; logout: SiteHandler; logoutAndLeave: SiteHandler } {
  const me = (ctx: SiteContext) => {
    const user = ctx.locals.user;
    // Per-user answer: no cache (shared or browser) may keep it.
    sendJson(
      ctx,
      200,
      { success: true, loggedIn: user !== null, user: user ? publicUser(user) : null },
      { 'Cache-Control': 'no-store' },
    );
  };

  const logout = async (ctx: SiteContext) => {
    await endSession(ctx, deps);
    sendOk(ctx);
  };

  // GET logout exists for links (docs/api.md lists it); our own pages POST. A GET
  // acts only for the user's own top-level navigation: SameSite=Lax keeps the
  // cookie off other sites' subresources, but not off our own pages, where a plugin
  // icon or screenshot of this path would log out everyone who sees it. Anything
  // else is 403 and the session stays.
  const logoutAndLeave = async (ctx: SiteContext) => {
    if (!isOwnTopLevelNavigation(ctx.req)) {
      throw new HttpError(403, 'FORBIDDEN', 'Log out by following a link or with POST /apps/auth/logout');
    }
    await endSession(ctx, deps);
    redirect(ctx, AFTER_LOGOUT);
  };

  return { me, logout, logoutAndLeave };
}
