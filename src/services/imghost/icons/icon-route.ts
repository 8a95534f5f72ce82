import { redirect, sendPrepared } from '../../../http/answer/index.js';
import type { ImghostContext, ImghostHandler } from '../context.js';
import { resolveIconFile, type IconAliases } from './icon-aliases.js';
import type { IconCatalog } from './icon-catalog.js';
import { iconNotFound } from './icon-errors.js';
import { parseIconQuery } from './icon-query.js';
import { renderKey, type RenderedIcon } from './icon-renderer.js';

interface Renderer {
  cached(key: string): RenderedIcon | undefined;
  render(key: string, fileName: string, query: ReturnType<typeof parseIconQuery>): Promise<RenderedIcon>;
}

/**
 * Remembered resolutions of a request (its target: path and raw query) to its render key, so a
 * repeated request for a cached icon skips parsing the query, the colour and the
 * name candidates: the hot path is a launcher or page asking the same few icons
 * over and over. Bounded in count and key length (the keys come from clients);
 * forgotten whole when full or when the icon folder changes.
 */
export const RESOLVED_REQUESTS_MAX_ENTRIES = 4096;
export const RESOLVED_REQUEST_MAX_KEY_LENGTH = 256;

/**
 * GET /SF/{name}. A trailing `*` rather than `:name`, so that `/SF/a/b` and an empty
 * name get the icon answer (`Icon not found`) like any other unknown name. A name
 * that is no icon may be an alias (`house` → `home.svg`, icon-aliases.ts).
 */
export function iconHandler(catalog: IconCatalog, aliases: IconAliases, renderer: Renderer): ImghostHandler {
  const resolved = new Map<string, string>();
  catalog.onChange(() => resolved.clear());

  const resolveAndSend = async (ctx: ImghostContext, requested: string, requestKey: string | undefined): Promise<void> => {
    if (requested === '') return redirect(ctx, '/SF', 301);
    const fileName = resolveIconFile(catalog, aliases, requested);
    if (fileName === undefined) throw iconNotFound();
    const query = parseIconQuery(ctx.query);
    const key = renderKey(fileName, query);
    send(ctx, renderer.cached(key) ?? (await renderer.render(key, fileName, query)));
    if (requestKey !== undefined) {
      if (resolved.size >= RESOLVED_REQUESTS_MAX_ENTRIES) resolved.clear();
      resolved.set(requestKey, key);
    }
  };

  return (ctx) => {
    // The request target as received (path and query) decides the answer: a key
    // made of nothing new.
    const requestKey = ctx.req.url ?? '';
    const known = requestKey.length <= RESOLVED_REQUEST_MAX_KEY_LENGTH ? requestKey : undefined;
    const key = known === undefined ? undefined : resolved.get(known);
    const icon = key === undefined ? undefined : renderer.cached(key);
    if (icon !== undefined) return send(ctx, icon);
    return resolveAndSend(ctx, ctx.params['*'] ?? '', known);
  };
}

function send(ctx: ImghostContext, icon: RenderedIcon): void {
  sendPrepared(ctx, icon);
}
