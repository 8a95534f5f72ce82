import { sendBody } from '../../core/respond.js';
import { HTML_CSP } from '../../core/security-headers.js';
import type { SiteContext, SiteDeps } from '../context.js';
import { installLink } from './install-routes.js';
import { notFoundPage, pluginPage } from './page-html.js';
import { findPluginRecord } from './plugin-reads.js';
import { canSee } from './visibility.js';

/**
 * GET /apps/plugin/:id: the plugin's page, the path the Bloret launcher links to
 * when a listing has no detail_url. Visible as the detail is (the one visibility
 * rule); the install button only for approved plugins, as the install link.
 */
export function pageHandler(deps: SiteDeps) {
  const scheme = deps.config.installScheme;
  return async (ctx: SiteContext) => {
    const row = await findPluginRecord(deps.sql, ctx.params.id!);
    const headers = { 'Content-Security-Policy': HTML_CSP, 'Cache-Control': 'no-store' };
    if (!row || !canSee({ id: row.id, status: row.status, submitterId: String(row.submitter_id) }, ctx.locals.user)) {
      sendBody(ctx, 404, notFoundPage(), 'text/html; charset=utf-8', headers);
      return;
    }
    const install = row.status === 'approved' ? installLink(scheme, row).installUrl : null;
    sendBody(ctx, 200, pluginPage(row, install), 'text/html; charset=utf-8', headers);
  };
}
