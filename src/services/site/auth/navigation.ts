import type { IncomingMessage } from 'node:http';

/** Sec-Fetch-Site values of a navigation this site (or the user) started. */
const OWN_SITES = new Set(['same-origin', 'same-site', 'none']);

/**
 * Whether a GET is a person's own top-level navigation (a link followed in our
 * pages, the address bar, a bookmark), by the Fetch Metadata headers browsers
 * send. Anything else that a page can make a browser fetch with the cookie (an
 * <img> or CSS background, a frame, fetch(), a prefetch) is not, even from our
 * own origin: a plugin icon of /apps/auth/logout is fetched by every viewer.
 *
 * A browser that sends Fetch Metadata always sends `Sec-Fetch-Site` with it (it
 * came first, and every browser sends the set together), so that header decides
 * whether the request has any:
 *
 * - `Sec-Fetch-Site` present: it must be `same-origin`, `same-site` or `none` (the
 *   user's own action); `Sec-Fetch-Mode`, when sent, must be `navigate`, and
 *   `Sec-Fetch-Dest`, when sent, `document` (a frame is not top-level).
 * - `Sec-Fetch-Site` absent: no browser's Fetch Metadata (curl, a script, a
 *   browser older than it), taken as a navigation. Node's fetch() adds
 *   `Sec-Fetch-Mode: cors` alone to every request; no page can make a browser send
 *   that without `Sec-Fetch-Site`. Browsers without Fetch Metadata are covered by
 *   the image link rule (src/services/site/store/image-links.ts), which keeps /apps/ out of
 *   <img>.
 * - `Sec-Purpose` or `Purpose` naming a prefetch: not a navigation yet, either way.
 */
export function isOwnTopLevelNavigation(req: IncomingMessage): boolean {
  const headers = req.headers;
  const purpose = headers['sec-purpose'] ?? headers.purpose;
  if (purpose !== undefined && /prefetch|prerender/i.test(String(purpose))) return false;
  const site = headers['sec-fetch-site'];
  if (site === undefined) return true;
  if (!OWN_SITES.has(site.trim().toLowerCase())) return false;
  const mode = headers['sec-fetch-mode'];
  if (mode !== undefined && mode.trim().toLowerCase() !== 'navigate') return false;
  const dest = headers['sec-fetch-dest'];
  if (dest !== undefined && dest.trim().toLowerCase() !== 'document') return false;
  return true;
}
