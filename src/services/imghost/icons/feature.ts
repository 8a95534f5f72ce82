import type { Feature } from '../../../http/feature.js';
import type { ImghostDeps, ImghostLocals } from '../context.js';
import { createIconAliases, parseAliasTable } from './icon-aliases.js';
import { openIconCatalog } from './icon-catalog.js';
import { createIconFiles } from './icon-files.js';
import { createIconRenderer } from './icon-renderer.js';
import { iconHandler } from './icon-route.js';
import { builtInIconSource, folderIconSource } from './icon-source.js';
import { aliasListHandler, listHandler } from './list-route.js';
import { pageHandlers } from './page-routes.js';
import { rawIconHandler } from './raw-route.js';
import { SF_ALIAS_TABLE } from './sf-aliases.js';

/**
 * Icons: GET /SF (search page), GET /SF/{name} (SVG or PNG, recoloured),
 * GET /SFs/{file}.svg (the file unchanged), GET /api/svg_files (the list),
 * GET /api/svg_aliases (SF Symbols names in use). ICONS_DIR, else the Tabler set
 * from node_modules. A folder that cannot be read at start-up is not fatal:
 * /api/svg_files answers 500 until it can be, and the catalog picks it up when it
 * appears. An alias table that does not fit the built-in set is (icon-aliases.ts).
 */
export async function iconsFeature(deps: ImghostDeps): Promise<Feature<ImghostLocals>> {
  const log = deps.log.child({ feature: 'icons' });
  const table = parseAliasTable(SF_ALIAS_TABLE);
  const builtIn = !deps.config.iconsDir;
  const source = deps.config.iconsDir ? folderIconSource(deps.config.iconsDir) : builtInIconSource();
  const catalog = await openIconCatalog(source, log);
  let aliases;
  try {
    aliases = createIconAliases({ table, catalog, log, strict: builtIn });
  } catch (error) {
    catalog.close();
    throw error;
  }
  const files = createIconFiles(catalog);
  const renderer = createIconRenderer(catalog, files);
  const page = pageHandlers();
  return {
    routes: [
      { method: 'GET', path: '/SF', handler: page.page },
      // The page's assets: every name under /SF/ is an icon name.
      { method: 'GET', path: '/static/sf/*', handler: page.assets },
      { method: 'GET', path: '/api/svg_files', handler: listHandler(catalog) },
      { method: 'GET', path: '/api/svg_aliases', handler: aliasListHandler(aliases) },
      { method: 'GET', path: '/SF/*', handler: iconHandler(catalog, aliases, renderer) },
      { method: 'GET', path: '/SFs/*', handler: rawIconHandler(catalog, aliases, files) },
    ],
    close: () => catalog.close(),
  };
}
