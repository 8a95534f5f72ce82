import type { Handler } from './context.js';
import { strongEtag } from './etag.js';
import { sendBody, sendNoContent } from './respond.js';

/**
 * GET /openapi.json: the service's OpenAPI document, serialized once at start-up.
 * Readable from any origin (API explorers, code generators), cacheable briefly, with
 * an ETag so a reload costs a 304.
 */
export function openApiHandler<L extends object>(document: object): Handler<L> {
  const body = Buffer.from(JSON.stringify(document));
  const etag = strongEtag(body);
  const headers = { 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'public, max-age=300', ETag: etag };
  return (ctx) => {
    if (ctx.req.headers['if-none-match'] === etag) {
      sendNoContent(ctx, 304, headers);
      return;
    }
    sendBody(ctx, 200, body, 'application/json; charset=utf-8', headers);
  };
}
