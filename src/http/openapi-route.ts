import type { Handler } from './context.js';
import { prepareJson, sendPrepared } from './answer/index.js';

/**
 * GET /openapi.json: the service's OpenAPI document, serialized once at start-up.
 * Readable from any origin (API explorers, code generators), cacheable briefly, with
 * an ETag so a reload costs a 304.
 */
export function openApiHandler<L extends object>(document: object): Handler<L> {
  const answer = prepareJson(document, { cacheControl: 'public, max-age=300', headers: { 'Access-Control-Allow-Origin': '*' } });
  return (ctx) => sendPrepared(ctx, answer);
}
