import type { HeaderList } from './answer/head.js';

/**
 * Baseline headers for every answer of both services, the request's own and those
 * of client-error.ts; written with each head by answer/head.ts.
 */
export const SECURITY_HEADERS: HeaderList = Object.freeze([
  'X-Content-Type-Options',
  'nosniff',
  'Referrer-Policy',
  'strict-origin-when-cross-origin',
  'X-Frame-Options',
  'DENY',
]);

/**
 * Our pages load only their own scripts and styles; images come from the site and
 * https (plugin icons, screenshots and the image host's uploads are https links or
 * in-site paths by rule; the pages show no other avatar). No `http:`: a page on
 * https must not load images in clear text, and an image host on plain http is
 * reached through the site's /img/ (src/services/site/images/image-proxy.ts).
 */
export const HTML_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; " +
  "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
