import type { IncomingMessage } from 'node:http';
import type { SiteSettings } from '../settings.js';
import { HttpError } from '../../http/errors.js';
import { getCookie } from '../../http/cookies.js';
import type { SiteMiddleware } from '../context.js';
import { sessionCookieName } from './cookies.js';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Sec-Fetch-Site values of a request our own pages (or the user) started. */
const OWN_FETCH_SITES = new Set(['same-origin', 'none']);

/**
 * Whether a browser says this request was started by another site:
 *
 * - `Origin` present: it must be exactly PUBLIC_URL's origin ("null" is refused).
 *   Browsers send Origin on every POST/PUT/PATCH/DELETE, same-origin included.
 * - `Origin` absent: foreign when `Sec-Fetch-Site` says the request came from
 *   another site (or a sibling subdomain: "same-site" is not "same-origin").
 * - Both absent: not foreign. That is a non-browser client (curl, the launcher),
 *   which no page can drive.
 *
 * `ownOrigin` is PUBLIC_URL's origin in lower case.
 */
export function isCrossSite(req: IncomingMessage, ownOrigin: string): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined) return origin.trim().toLowerCase() !== ownOrigin;
  const fetchSite = req.headers['sec-fetch-site'];
  return typeof fetchSite === 'string' && !OWN_FETCH_SITES.has(fetchSite.trim().toLowerCase());
}

const refused = () => new HttpError(403, 'FORBIDDEN', 'Cross-site request refused');

/**
 * Refuses a state-changing request that carries the session cookie but comes from
 * another site (isCrossSite), before any handler runs or any body is read.
 *
 * A browser old enough to send neither Origin nor Sec-Fetch-Site still gets
 * SameSite=Lax, which keeps the cookie off cross-site POSTs.
 *
 * Requests without the cookie are let through: they act as nobody, so there is
 * nothing to forge (the password login route has its own rate limits). That
 * includes a request with an API token (Authorization: Bearer) and no cookie:
 * browsers never attach one by themselves, so it cannot be forged either (the
 * guards refuse a token sent together with the cookie). A route that acts for
 * nobody but still must not be driven by other sites (the install click, which
 * counts) adds sameSiteOnly below.
 */
export function crossSiteProtection(config: SiteSettings): SiteMiddleware {
  const cookieName = sessionCookieName(config);
  const ownOrigin = config.publicOrigin.toLowerCase();
  const protect: SiteMiddleware = (ctx, next) => {
    if (!STATE_CHANGING.has(ctx.method) || getCookie(ctx.req, cookieName) === undefined) return next();
    if (isCrossSite(ctx.req, ownOrigin)) throw refused();
    return next();
  };
  // Routes of other methods (GET: the launchers' polls, pages, icons) are composed without it.
  return Object.assign(protect, { onlyFor: STATE_CHANGING });
}

/**
 * The same refusal with or without a cookie, for a route whose effect another
 * site must not cause from its visitors' browsers even anonymously: a page on
 * evil.example posting to the install click would raise counts from every
 * visitor's address. Clients that send neither header (the launcher) pass.
 */
export function sameSiteOnly(config: SiteSettings): SiteMiddleware {
  const ownOrigin = config.publicOrigin.toLowerCase();
  return (ctx, next) => {
    if (isCrossSite(ctx.req, ownOrigin)) throw refused();
    return next();
  };
}
