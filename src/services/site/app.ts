import { join } from 'node:path';
import { createApp } from '../../http/app.js';
import type { Feature } from '../../http/feature.js';
import { healthHandlers } from '../../http/health.js';
import { projectRoot } from '../../lib/project-root.js';
import { loadStaticFolder, staticHandler } from '../../http/static-files.js';
import { databaseIsReady } from '../../db/pool.js';
import { checkQueries } from '../../db/queries.js';
import { authFeature } from './auth/feature.js';
import { createGuards } from './auth/guards.js';
import type { SiteDeps, SiteLocals, SiteRoute } from './context.js';
import { openApiHandler } from '../../http/openapi-route.js';
import { storableQuery } from '../../http/query-params.js';
import { serviceMetrics } from '../../http/metrics/service-metrics.js';
import { poolUseMetrics } from '../../db/pool-use.js';
import { SITE_OPENAPI } from './openapi/document.js';
import { renderSiteError } from './errors.js';
import { launcherFeature } from './launcher/feature.js';
import { imagesFeature } from './images/feature.js';
import { pagesFeature, SITE_STATIC_OPTIONS } from './pages/feature.js';
import { storeFeature } from './store/feature.js';
import { ratingsFeature } from './ratings/feature.js';
import { statsFeature } from './stats/feature.js';
import { auditFeature } from './audit/feature.js';
import { reportsFeature } from './reports/feature.js';
import { notificationsFeature } from './notifications/feature.js';
import { tokensFeature } from './auth/tokens/feature.js';
import { webhooksFeature } from './webhooks/feature.js';
import { versionsFeature } from './store/versions/feature.js';
import { packageChecksFeature } from './store/package-checks/feature.js';
import { createImageHostClient } from './image-host/client.js';
import { DEFAULT_IMAGE_HOST_LIMITS } from './image-host/limits.js';

/** Service A: the route table is the sum of its features, read top to bottom. */
export function createSite(deps: SiteDeps) {
  // Every named query read and its declared parameters checked now: a bad one stops start-up.
  checkQueries();
  // The access rules, made once: every feature's table uses the same guards.
  const guards = createGuards(deps);
  // One client of the image host for images, packages and inspections: one pool, one set of timeouts.
  const imageHost = createImageHostClient(deps.config, DEFAULT_IMAGE_HOST_LIMITS);
  const features: Feature<SiteLocals>[] = [
    launcherFeature(deps),
    authFeature(deps, guards),
    storeFeature(deps, guards),
    versionsFeature(deps, guards, imageHost),
    packageChecksFeature(deps, guards, imageHost),
    ratingsFeature(deps, guards),
    statsFeature(deps, guards),
    auditFeature(deps, guards),
    reportsFeature(deps, guards),
    notificationsFeature(deps, guards),
    webhooksFeature(deps, guards),
    imagesFeature(deps, guards, imageHost),
    tokensFeature(deps, guards),
    pagesFeature(deps, guards),
  ];
  const metrics = serviceMetrics(deps.config.metricsToken, features, poolUseMetrics);
  const health = healthHandlers(() => databaseIsReady(deps.sql));
  const staticFiles = loadStaticFolder(join(projectRoot(), 'static', 'site'), SITE_STATIC_OPTIONS);
  const routes: SiteRoute[] = [
    { method: 'GET', path: '/healthz', handler: health.live },
    { method: 'GET', path: '/readyz', handler: health.ready },
    { method: 'GET', path: '/openapi.json', handler: openApiHandler(SITE_OPENAPI) },
    { method: 'GET', path: '/metrics', handler: metrics.handler },
    ...features.flatMap((feature) => feature.routes),
    { method: 'GET', path: '/static/*', handler: staticHandler(staticFiles) },
  ];
  const handler = createApp<SiteLocals>({
    name: 'site',
    log: deps.log,
    trustProxy: deps.config.trustProxy,
    createLocals: () => ({ user: null }),
    // PostgreSQL cannot hold a NUL: a query carrying one is 400 on every route.
    parseQuery: storableQuery,
    renderError: renderSiteError,
    middleware: features.flatMap((feature) => feature.middleware ?? []),
    routes,
    metrics: metrics.http,
  });
  return {
    handler,
    /** The route table, as data (the OpenAPI completeness test walks it). */
    routes: routes.map(({ method, path }) => ({ method, path })),
    close: async () => {
      for (const feature of features) await feature.close?.();
      // After the features: the package checks' worker may still be inspecting until it stops.
      await imageHost.close();
    },
  };
}
