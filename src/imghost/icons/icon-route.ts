import { etagMatches, redirect, sendBody, sendNoContent } from '../../core/respond.js';
import type { ImghostContext, ImghostRoute } from '../context.js';
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
 * GET /SF/{name}. A trailing `*` rather than `:name`, so that `/SF/a/b` and an empty
 * name get the icon answer (`Icon not found`) like any other unknown name. A name
 * that is no icon may be an alias (`house` → `home.svg`, icon-aliases.ts).
 */
export function iconRoute(catalog: IconCatalog, aliases: IconAliases, renderer: Renderer): ImghostRoute {
  return {
    method: 'GET',
    path: '/SF/*',
    handler: async (ctx) => {
      const requested = ctx.params['*'] ?? '';
      if (requested === '') return redirect(ctx, '/SF', 301);
      const fileName = resolveIconFile(catalog, aliases, requested);
      if (fileName === undefined) throw iconNotFound();
      const query = parseIconQuery(ctx.query);
      const key = renderKey(fileName, query);
      send(ctx, renderer.cached(key) ?? (await renderer.render(key, fileName, query)));
    },
  };
}

function send(ctx: ImghostContext, icon: RenderedIcon): void {
  if (etagMatches(ctx.req.headers['if-none-match'], icon.etag)) return sendNoContent(ctx, 304, icon.headers);
  sendBody(ctx, 200, icon.body, icon.contentType, icon.headers);
}
