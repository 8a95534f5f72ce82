import type { SiteSettings } from '../settings.js';
import { validationFailed } from '../../http/errors.js';
import { link } from './text-rules.js';

// Where a plugin's images (icon, screenshots' url and webpUrl) may point. Every
// browser that shows a plugin fetches its images with the site's cookie when
// they are on the site's own host (the review queue included), so an image of
// /apps/auth/logout logged out whoever saw it, and any other GET with an effect
// would act for them the same way. Images on the site are therefore limited to
// folders that only serve files; the site's own host is refused in absolute
// links (any port: cookies do not tell ports apart), except under the image
// host's public URL when an operator serves it from the site's host.

/** In-site folders that serve files and nothing else: the site's assets, and media
 *  (uploaded images, when a proxy serves the image host's /img/ or a /media/
 *  folder on the site's origin). Never /apps/ or /api/. */
export const IN_SITE_IMAGE_PREFIXES = ['/static/', '/media/', '/img/'] as const;

export interface ImageLinkRule {
  /** PUBLIC_URL's host name, in lower case, without a trailing dot. */
  siteHost: string;
  /** Absolute links on the site's host allowed anyway: IMAGE_HOST_PUBLIC_URL + /img/, when it is on that host. */
  ownHostMedia: string[];
}

export function imageLinkRule(config: Pick<SiteSettings, 'publicUrl' | 'imageHostPublicUrl'>): ImageLinkRule {
  const siteHost = hostOf(new URL(config.publicUrl));
  const media = new URL(config.imageHostPublicUrl);
  const ownHostMedia = hostOf(media) === siteHost ? [`${media.origin}${media.pathname.replace(/\/+$/, '')}/img/`] : [];
  return { siteHost, ownHostMedia };
}

const ONLY = `must be an https:// link to another host, or a path under ${IN_SITE_IMAGE_PREFIXES.join(', ')}`;

/** An image link (link() of text-rules.ts) that cannot make a viewer's browser call the site. */
export function imageLink(field: string, value: unknown, rule: ImageLinkRule): string {
  const stored = link(field, value);
  if (stored.startsWith('/')) {
    if (!staysUnder(stored, IN_SITE_IMAGE_PREFIXES)) throw validationFailed(field, `${field} ${ONLY}`);
  } else if (hostOf(new URL(stored)) === rule.siteHost && !staysUnder(stored, rule.ownHostMedia)) {
    throw validationFailed(field, `${field} must not point at this site's own address; it ${ONLY}`);
  }
  return stored;
}

const BASE = 'https://site.invalid';

/**
 * Whether `target` (a path, or an absolute link) stays inside one of `prefixes` (paths,
 * or absolute) once a browser resolves it. Dot segments (also escaped), backslashes
 * and escaped slashes in the path are refused outright: a browser or a proxy may
 * resolve them somewhere we did not look.
 */
function staysUnder(target: string, prefixes: readonly string[]): boolean {
  const path = target.split(/[?#]/, 1)[0]!;
  if (/\\|%2f|%5c/i.test(path) || /(^|\/)(\.|%2e){1,2}(\/|$)/i.test(path)) return false;
  const resolved = new URL(target, BASE).href;
  return prefixes.some((prefix) => resolved.startsWith(prefix.startsWith('/') ? BASE + prefix : prefix));
}

function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/\.$/, '');
}
