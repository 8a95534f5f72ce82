import type { HeaderList } from '../answer-head.js';
import type { Middleware } from '../context.js';

/** Baseline headers for every answer of both services. */
export const SECURITY_HEADERS: HeaderList = Object.freeze([
  'X-Content-Type-Options',
  'nosniff',
  'Referrer-Policy',
  'strict-origin-when-cross-origin',
  'X-Frame-Options',
  'DENY',
]);

/**
 * Puts SECURITY_HEADERS on every answer. They are written with the answer's head
 * (answer-head.ts), so this only names the list: no header is set here.
 */
export function securityHeaders(): Middleware<any> {
  return (ctx, next) => {
    ctx.answerHeaders = ctx.answerHeaders.length === 0 ? SECURITY_HEADERS : [...ctx.answerHeaders, ...SECURITY_HEADERS];
    return next();
  };
}

/**
 * Our pages load only their own scripts and styles; images may come from the image
 * host and https (plugin icons and screenshots are https links by rule).
 */
export const HTML_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https: http:; " +
  "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
