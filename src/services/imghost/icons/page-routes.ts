import { join } from 'node:path';
import { projectRoot } from '../../../lib/project-root.js';
import { loadStaticFolder, staticHandler } from '../../../http/static-files.js';
import type { ImghostHandler } from '../context.js';

// The /SF search page: static HTML, JavaScript and CSS from static/imghost/sf, read
// into memory at start-up. The page has no inline script or style, so the HTML CSP
// (`script-src 'self'`) holds. Its assets live under /static/sf/ because every name
// under /SF/ is an icon name.

/** GET /SF (the page) and GET /static/sf/* (its assets). */
export function pageHandlers(): { page: ImghostHandler; assets: ImghostHandler } {
  const files = loadStaticFolder(join(projectRoot(), 'static', 'imghost', 'sf'));
  if (!files.has('index.html')) throw new Error('static/imghost/sf/index.html is missing');
  return { page: staticHandler(files, 'index.html'), assets: staticHandler(files) };
}
