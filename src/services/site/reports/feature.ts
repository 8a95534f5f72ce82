import type { Feature } from '../../../http/feature.js';
import { jsonBody } from '../../../http/json-body.js';
import type { Guards } from '../auth/guards.js';
import type { SiteDeps, SiteLocals } from '../context.js';
import { createReportHandler, listReportsHandler } from './report-routes.js';
import { resolveReportHandler, unhideRatingHandler } from './resolve-route.js';

/**
 * Reports of plugins and ratings by users, and their resolution by administrators
 * (dismiss, hide the rating, unlist the plugin), each resolution in the audit log.
 */
export function reportsFeature(deps: SiteDeps, guards: Guards): Feature<SiteLocals> {
  return {
    routes: [
      { method: 'POST', path: '/apps/api/reports', use: [guards.userRequired, jsonBody()], handler: createReportHandler(deps) },
      { method: 'GET', path: '/apps/api/reports', use: [guards.adminRequired], handler: listReportsHandler(deps) },
      { method: 'POST', path: '/apps/api/reports/:id/resolve', use: [guards.adminRequired, jsonBody()], handler: resolveReportHandler(deps) },
      { method: 'POST', path: '/apps/api/plugins/:id/ratings/:ratingUser/unhide', use: [guards.adminRequired], handler: unhideRatingHandler(deps) },
    ],
  };
}
