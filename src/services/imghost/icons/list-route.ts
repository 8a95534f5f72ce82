import { answeredNotModified, sendBody } from '../../../http/answer/index.js';
import type { ImghostHandler } from '../context.js';
import type { IconAliases } from './icon-aliases.js';
import type { IconCatalog } from './icon-catalog.js';
import { listUnavailable } from './icon-errors.js';
import { LIST_CACHE_CONTROL } from './limits.js';

/** GET /api/svg_files: the sorted names, from the buffers made at the last scan. */
export function listHandler(catalog: IconCatalog): ImghostHandler {
  return (ctx) => {
    const listing = catalog.listing();
    if (!listing) throw listUnavailable();
    // ~6,000 names are ~130 KB of JSON and ~25 KB gzipped: worth one header check.
    const gzip = acceptsGzip(ctx.req.headers['accept-encoding']);
    const etag = gzip ? listing.gzipEtag : listing.etag;
    const headers: Record<string, string> = { ETag: etag, 'Cache-Control': LIST_CACHE_CONTROL, Vary: 'Accept-Encoding' };
    if (answeredNotModified(ctx, etag, headers)) return;
    if (gzip) headers['Content-Encoding'] = 'gzip';
    sendBody(ctx, 200, gzip ? listing.gzip : listing.json, 'application/json; charset=utf-8', headers);
  };
}

/** RFC 9110 12.5.3: `gzip` (or `*`) listed with a non-zero q-value. */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((item) => {
    const [coding = '', ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== '*') return false;
    const q = params.find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * GET /api/svg_aliases: `{alias: file}` for every alias in use (icon-aliases.ts),
 * which the /SF page shows beside each icon. /api/svg_files stays a list of real files.
 */
export function aliasListHandler(aliases: IconAliases): ImghostHandler {
  return (ctx) => {
    const listing = aliases.listing();
    if (!listing) throw listUnavailable();
    const headers = { ETag: listing.etag, 'Cache-Control': LIST_CACHE_CONTROL };
    if (answeredNotModified(ctx, listing.etag, headers)) return;
    sendBody(ctx, 200, listing.json, 'application/json; charset=utf-8', headers);
  };
}
