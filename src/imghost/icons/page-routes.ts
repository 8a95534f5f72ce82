import { join } from 'node:path';
import { projectRoot } from '../../core/project-root.js';
import { loadStaticFolder, staticHandler } from '../../core/static-files.js';
import type { ImghostRoute } from '../context.js';

// The /SF search page: static HTML, JavaScript and CSS from static/imghost/sf, read
// into memory at start-up. The page has no inline script or style, so the HTML CSP
// (`script-src 'self'`) holds. Its assets live under /static/sf/ because every name
// under /SF/ is an icon name.

export const PAGE_ASSETS_PREFIX = '/static/sf/';

export function pageRoutes(): ImghostRoute[] {
  const files = loadStaticFolder(join(projectRoot(), 'static', 'imghost', 'sf'));
  if (!files.has('index.html')) throw new Error('static/imghost/sf/index.html is missing');
  return [
    { method: 'GET', path: '/SF', handler: staticHandler(files, 'index.html') },
    { method: 'GET', path: PAGE_ASSETS_PREFIX + '*', handler: staticHandler(files) },
  ];
}
