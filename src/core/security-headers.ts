import type { HeaderList } from './answer-head.js';

/**
 * Baseline headers for every answer of both services, the request's own and those
 * of client-error.ts; written with each head by answer-head.ts.
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
 * Our pages load only their own scripts and styles; images may come from the image
 * host and https (plugin icons and screenshots are https links by rule).
 */
export const HTML_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https: http:; " +
  "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
