import type { Feature } from '../../../http/feature.js';
import type { Guards } from '../auth/guards.js';
import type { SiteDeps, SiteLocals } from '../context.js';
import { installStatsManyHandler } from './install-stats-many-route.js';
import { installStatsHandler } from './install-stats-route.js';

/**
 * Statistics over time. Install clicks are counted per plugin per UTC day by the
 * store's install-click statement as they happen (plugin_install_days); this
 * feature reads them.
 */
export function statsFeature(deps: SiteDeps, guards: Guards): Feature<SiteLocals> {
  return {
    routes: [
      { method: 'GET', path: '/apps/api/plugins/:id/stats', use: [guards.withUser], handler: installStatsHandler(deps) },
      // Several plugins' series in one query, for My plugins' sparklines.
      { method: 'GET', path: '/apps/api/stats/installs', use: [guards.withUser], handler: installStatsManyHandler(deps) },
    ],
  };
}
