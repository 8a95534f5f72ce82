import type { IncomingMessage } from 'node:http';

/**
 * Whether a GET is a person's own top-level navigation (a link followed in our
 * pages, the address bar, a bookmark), by the Fetch Metadata headers browsers
 * send. Anything else that a page can make a browser fetch with the cookie (an
 * <img> or CSS background, a frame, fetch(), a prefetch) is not, even from our
 * own origin: a plugin icon of /apps/auth/logout is fetched by every viewer.
 *
 * - `Sec-Fetch-Mode` present: it must be `navigate`.
 * - `Sec-Fetch-Dest` present: it must be `document` (a frame is not top-level).
 * - `Sec-Fetch-Site` present: it must be `same-origin` or `none` (the user's own
 *   action): another site's link or redirect must not act for it either.
 * - `Sec-Purpose` or `Purpose` naming a prefetch: not a navigation yet.
 * - None of them (curl, a browser older than Fetch Metadata): it is taken as one
 *   (the browser logout link keeps working for them); such browsers are covered by the image link
 *   rule (src/site/store/image-links.ts), which keeps /apps/ out of <img>.
 */
export function isOwnTopLevelNavigation(req: IncomingMessage): boolean {
  const headers = req.headers;
  const mode = headers['sec-fetch-mode'];
  if (mode !== undefined && mode.trim().toLowerCase() !== 'navigate') return false;
  const dest = headers['sec-fetch-dest'];
  if (dest !== undefined && dest.trim().toLowerCase() !== 'document') return false;
  const site = headers['sec-fetch-site'];
  if (site !== undefined && !['same-origin', 'none'].includes(site.trim().toLowerCase())) return false;
  const purpose = headers['sec-purpose'] ?? headers.purpose;
  if (purpose !== undefined && /prefetch|prerender/i.test(String(purpose))) return false;
  return true;
}
