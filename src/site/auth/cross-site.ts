import type { Config } from '../../core/config.js';
import { HttpError } from '../../core/errors.js';
import { getCookie } from '../../core/middleware/cookies.js';
import type { SiteMiddleware } from '../context.js';
import { sessionCookieName } from './cookies.js';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Sec-Fetch-Site values of a request our own pages (or the user) started. */
const OWN_FETCH_SITES = new Set(['same-origin', 'none']);

/**
 * Refuses a state-changing request that carries the session cookie but comes from
 * another site, before any handler runs or any body is read.
 *
 * - `Origin` present: it must be exactly PUBLIC_URL's origin ("null" is refused).
 *   Browsers send Origin on every POST/PUT/PATCH/DELETE, same-origin included.
 * - `Origin` absent: refused when `Sec-Fetch-Site` says the request came from
 *   another site (or a sibling subdomain: "same-site" is not "same-origin").
 * - Both absent: allowed. That is a non-browser client (curl, the launcher), which
 *   holds its own cookie and cannot be tricked by a page; a browser old enough to
 *   send neither still gets SameSite=Lax, which keeps the cookie off cross-site POSTs.
 *
 * Requests without the cookie are let through: they act as nobody, so there is
 * nothing to forge (the password login route has its own rate limits). That
 * includes a request with an API token (Authorization: Bearer) and no cookie:
 * browsers never attach one by themselves, so it cannot be forged either (the
 * guards refuse a token sent together with the cookie).
 */
export function crossSiteProtection(config: Config): SiteMiddleware {
  const cookieName = sessionCookieName(config);
  const ownOrigin = config.publicOrigin.toLowerCase();
  return (ctx, next) => {
    if (!STATE_CHANGING.has(ctx.method) || getCookie(ctx.req, cookieName) === undefined) return next();
    const origin = ctx.req.headers.origin;
    const fetchSite = ctx.req.headers['sec-fetch-site'];
    const foreign =
      origin !== undefined
        ? origin.trim().toLowerCase() !== ownOrigin
        : typeof fetchSite === 'string' && !OWN_FETCH_SITES.has(fetchSite.trim().toLowerCase());
    if (foreign) throw new HttpError(403, 'FORBIDDEN', 'Cross-site request refused');
    return next();
  };
}
