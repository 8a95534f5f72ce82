import type { ServerResponse } from 'node:http';
import type { Middleware } from '../context.js';

/** Baseline headers for every answer of both services. */
export function securityHeaders(): Middleware<any> {
  return (ctx, next) => {
    ctx.res.setHeader('X-Content-Type-Options', 'nosniff');
    ctx.res.setHeader('Referrer-Policy', 'strict-origin-when-cross-origin');
    ctx.res.setHeader('X-Frame-Options', 'DENY');
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

export function setHtmlSecurityHeaders(res: ServerResponse, csp = HTML_CSP): void {
  res.setHeader('Content-Security-Policy', csp);
}
