import type { IncomingMessage } from 'node:http';
import type { SiteSettings } from '../settings.js';
import { HttpError } from '../../../http/errors.js';
import { getCookie } from '../../../http/cookies.js';
import type { SiteMiddleware } from '../context.js';
import { sessionCookieName } from './cookies.js';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Sec-Fetch-Site values of a request our own pages (or the user) started. */
const OWN_FETCH_SITES = new Set(['same-origin', 'none']);

/** The names of this machine's loopback interface, in an origin's form. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The origins that are this site's own: PUBLIC_URL's, in lower case, and, when that
 * is a loopback address (the default, `http://localhost:3000`, as under `npm
 * start`), the same scheme and port under the other names of the loopback
 * interface. `npm start` prints `http://127.0.0.1:3000`, and a browser there sends
 * that origin: it is the same server on the same machine, where another port
 * would be another site.
 */
export function ownOrigins(publicUrl: string): ReadonlySet<string> {
  const url = new URL(publicUrl);
  const own = new Set([url.origin.toLowerCase()]);
  if (LOOPBACK_HOSTS.includes(url.hostname.toLowerCase())) {
    for (const host of LOOPBACK_HOSTS) own.add(`${url.protocol}//${host}${url.port ? ':' + url.port : ''}`);
  }
  return own;
}

/**
 * Whether a browser says this request was started by another site:
 *
 * - `Origin` present: it must be one of `own` (ownOrigins; "null" is refused).
 *   Browsers send Origin on every POST/PUT/PATCH/DELETE, same-origin included.
 * - `Origin` absent: foreign when `Sec-Fetch-Site` says the request came from
 *   another site (or a sibling subdomain: "same-site" is not "same-origin").
 * - Both absent: not foreign. That is a non-browser client (curl, the launcher),
 *   which no page can drive.
 *
 */
export function isCrossSite(req: IncomingMessage, own: ReadonlySet<string>): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined) return !own.has(origin.trim().toLowerCase());
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
  const own = ownOrigins(config.publicUrl);
  const protect: SiteMiddleware = (ctx, next) => {
    if (!STATE_CHANGING.has(ctx.method) || getCookie(ctx.req, cookieName) === undefined) return next();
    if (isCrossSite(ctx.req, own)) throw refused();
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
  const own = ownOrigins(config.publicUrl);
  return (ctx, next) => {
    if (isCrossSite(ctx.req, own)) throw refused();
    return next();
  };
}
