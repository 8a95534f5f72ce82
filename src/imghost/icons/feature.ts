import type { Feature } from '../../core/feature.js';
import type { ImghostDeps, ImghostLocals } from '../context.js';
import { openIconCatalog } from './icon-catalog.js';
import { createIconFiles } from './icon-files.js';
import { createIconRenderer } from './icon-renderer.js';
import { iconRoute } from './icon-route.js';
import { builtInIconSource, folderIconSource } from './icon-source.js';
import { listRoute } from './list-route.js';
import { pageRoutes } from './page-routes.js';

/**
 * Icons: GET /SF (search page), GET /SF/{name} (SVG or PNG, recoloured),
 * GET /api/svg_files (the list). ICONS_DIR, else the Tabler set from node_modules.
 * A folder that cannot be read at start-up is not fatal: /api/svg_files answers 500
 * until it can be, and the catalog picks it up when it appears.
 */
export async function iconsFeature(deps: ImghostDeps): Promise<Feature<ImghostLocals>> {
  const log = deps.log.child({ feature: 'icons' });
  const source = deps.config.iconsDir ? folderIconSource(deps.config.iconsDir) : builtInIconSource();
  const catalog = await openIconCatalog(source, log);
  const renderer = createIconRenderer(catalog, createIconFiles(catalog));
  return {
    routes: [...pageRoutes(), listRoute(catalog), iconRoute(catalog, renderer)],
    close: () => catalog.close(),
  };
}
