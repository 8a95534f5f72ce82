import type { SiteSettings } from '../settings.js';
import { validationFailed } from '../../../http/errors.js';
import { link } from '../text-rules.js';

// Where a plugin's images (icon, screenshots' url and webpUrl) may point. Every
// browser that shows a plugin fetches its images with the site's cookie when
// they are on the site's own host (the review queue included), so an image of
// /apps/auth/logout logged out whoever saw it, and any other GET with an effect
// would act for them the same way. Such GETs are all under /apps/ (the rest of the
// site only reads: files, the launcher's /api/, health), so an in-site image may
// be any path that starts with one `/` (CONTRACT) except under /apps/. The site's
// own host is refused in absolute links (any port: cookies do not tell ports
// apart, and another port may be another service), except under the image host's
// public URL when an operator serves it from the site's host.

/** The in-site folder whose GETs may act (logout, the login flow): never an image. */
export const ACTING_PREFIX = '/apps/';

export interface ImageLinkRule {
  /** PUBLIC_URL's host name, in lower case, without a trailing dot. */
  siteHost: string;
  /** Absolute links on the site's host allowed anyway: IMAGE_HOST_PUBLIC_URL + /img/, when it is on that host. */
  ownHostImages: string[];
}

export function imageLinkRule(config: Pick<SiteSettings, 'publicUrl' | 'imageHostPublicUrl'>): ImageLinkRule {
  const siteHost = hostOf(new URL(config.publicUrl));
  const imageHost = new URL(config.imageHostPublicUrl);
  const ownHostImages = hostOf(imageHost) === siteHost ? [`${imageHost.origin}${imageHost.pathname.replace(/\/+$/, '')}/img/`] : [];
  return { siteHost, ownHostImages };
}

const ONLY = `must be an https:// link to another host, or a path that starts with one / outside ${ACTING_PREFIX}`;

/** An image link (link() of text-rules.ts) that cannot make a viewer's browser call the site. */
export function imageLink(field: string, value: unknown, rule: ImageLinkRule): string {
  const stored = link(field, value);
  if (stored.startsWith('/')) {
    if (!isReadOnlyPath(stored)) throw validationFailed(field, `${field} ${ONLY}`);
  } else if (hostOf(new URL(stored)) === rule.siteHost && !staysUnder(stored, rule.ownHostImages)) {
    throw validationFailed(field, `${field} must not point at this site's own address; it ${ONLY}`);
  }
  return stored;
}

const BASE = 'https://site.invalid';

/**
 * Whether an in-site path stays outside /apps/ (and is not /apps itself) once a
 * browser resolves it and a proxy or router decodes it: compared decoded and in
 * lower case, so that neither `/%61pps/` nor `/APPS/` gets in. Paths refused by
 * unambiguous() are refused here too.
 */
function isReadOnlyPath(target: string): boolean {
  if (!unambiguous(target)) return false;
  // Each escape decoded on its own, so that a malformed one elsewhere in the path
  // does not hide the letters of `apps`.
  const path = new URL(target, BASE).pathname.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))).toLowerCase();
  return path !== ACTING_PREFIX.slice(0, -1) && !path.startsWith(ACTING_PREFIX);
}

/**
 * Whether `target` (an absolute link) stays inside one of `prefixes` (absolute) once
 * a browser resolves it.
 */
function staysUnder(target: string, prefixes: readonly string[]): boolean {
  if (!unambiguous(target)) return false;
  const resolved = new URL(target, BASE).href;
  return prefixes.some((prefix) => resolved.startsWith(prefix));
}

/**
 * Dot segments (also escaped), backslashes and escaped slashes in the path are
 * refused outright: a browser or a proxy may resolve them somewhere we did not look.
 */
function unambiguous(target: string): boolean {
  const path = target.split(/[?#]/, 1)[0]!;
  return !/\\|%2f|%5c/i.test(path) && !/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(path);
}

function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/\.$/, '');
}
