import type { Feature } from '../../../http/feature.js';
import { jsonBody } from '../../../http/json-body.js';
import { sameSiteOnly } from '../auth/cross-site.js';
import type { Guards } from '../auth/guards.js';
import type { SiteDeps, SiteLocals } from '../context.js';
import { useImageLinkRule } from './markdown/plugin-markdown.js';
import { detailHandler } from './detail-route.js';
import { imageLinkRule } from './image-links.js';
import { startClickPurge } from './click-purge.js';
import { installClickHandler, installLinkHandler, manifestHandler } from './install-routes.js';
import { listHandler } from './list-route.js';
import { createKeptAnswers } from '../kept-answers.js';
import { outageCopiesOf } from '../outage-copies.js';
import { reviewCountsHandler } from './review-counts-route.js';
import { editHandler, reviewHandler } from './write-routes.js';

/** The plugin store: submit, edit, review, list and search, detail, install. */
export function storeFeature(deps: SiteDeps, guards: Guards): Feature<SiteLocals> {
  const purge = startClickPurge(deps);
  const keptAnswers = createKeptAnswers(deps.sql, { staleIfErrorSeconds: deps.config.staleIfErrorSeconds });
  useImageLinkRule(imageLinkRule(deps.config));
  return {
    routes: [
      { method: 'GET', path: '/apps/api/plugins', use: [keptAnswers.readAhead, guards.withUser], handler: listHandler(deps, keptAnswers) },
      { method: 'GET', path: '/apps/api/plugins/:id', use: [keptAnswers.readAhead, guards.withUser], handler: detailHandler(deps, keptAnswers) },
      { method: 'PATCH', path: '/apps/api/plugins/:id', use: [guards.userOrToken('plugins:write'), jsonBody()], handler: editHandler(deps) },
      { method: 'POST', path: '/apps/api/plugins/:id/review', use: [guards.adminRequired, jsonBody()], handler: reviewHandler(deps) },
      { method: 'GET', path: '/apps/api/review/counts', use: [guards.adminRequired], handler: reviewCountsHandler(deps) },
      { method: 'GET', path: '/apps/api/plugins/:id/install-link', handler: installLinkHandler(deps) },
      { method: 'GET', path: '/apps/api/plugins/:id/manifest.json', handler: manifestHandler(deps) },
      // Another site must not count clicks from its visitors' browsers (403, nothing counted).
      { method: 'POST', path: '/apps/api/plugins/:id/install-click', use: [sameSiteOnly(deps.config)], handler: installClickHandler(deps) },
    ],
    // The process's outage copies (all its caches'): what it grows by once they fill.
    metrics: () => {
      const copies = outageCopiesOf(deps.sql);
      return [
        { name: 'site_outage_copies_bytes', help: 'Bytes counted for the visitor answers kept for a database outage', type: 'gauge', value: copies.bytes },
        { name: 'site_outage_copies', help: 'Visitor answers kept for a database outage', type: 'gauge', value: copies.size },
      ];
    },
    close: () => purge.stop(),
  };
}
