import { timingSafeEqual, createHash } from 'node:crypto';
import type { Handler } from '../context.js';
import { HttpError } from '../errors.js';
import { sendBody } from '../answer/index.js';
import { METRICS_CONTENT_TYPE } from './exposition.js';

/**
 * GET /metrics: Prometheus text for `Authorization: Bearer <METRICS_TOKEN>`, 401
 * without it; without a token configured the route is 404 like any unknown path,
 * so a deployment that never asked for metrics shows none.
 */
export function metricsHandler<L extends object>(token: string | undefined, render: () => string | Promise<string>): Handler<L> {
  // Both sides hashed first: timingSafeEqual needs equal lengths, and comparing
  // digests tells an attacker nothing about the token's length either.
  const expected = token === undefined ? undefined : digest(token);
  return async (ctx) => {
    if (expected === undefined) throw new HttpError(404, 'NOT_FOUND', 'Not found');
    const sent = BEARER.exec(ctx.req.headers.authorization ?? '')?.[1];
    if (sent === undefined || !timingSafeEqual(digest(sent), expected)) {
      throw new HttpError(401, 'UNAUTHORIZED', 'Metrics need Authorization: Bearer <METRICS_TOKEN>', {
        headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
      });
    }
    sendBody(ctx, 200, await render(), METRICS_CONTENT_TYPE, { 'Cache-Control': 'no-store' });
  };
}

/** RFC 6750 2.1: the scheme is case-insensitive. */
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

const digest = (text: string) => createHash('sha256').update(text).digest();
