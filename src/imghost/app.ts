import { mkdir } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { createApp } from '../http/app.js';
import type { Feature } from '../http/feature.js';
import type { Route } from '../http/context.js';
import { healthHandlers } from '../http/health.js';
import { openApiHandler } from '../http/openapi-route.js';
import { serviceMetrics } from '../http/metrics/service-metrics.js';
import { IMGHOST_OPENAPI } from './openapi/document.js';
import type { ImghostDeps, ImghostLocals } from './context.js';
import { renderImghostError } from './errors.js';
import { iconsFeature } from './icons/feature.js';
import { imagesFeature } from './images/feature.js';
import { packagesFeature } from './packages/feature.js';
import { imagesDirReady } from './readiness.js';

/** Service B: uploads, originals and WebP previews, icons. */
export async function createImghost(deps: ImghostDeps) {
  await mkdir(deps.config.imagesDir, { recursive: true });
  const features: Feature<ImghostLocals>[] = [await imagesFeature(deps), await packagesFeature(deps), await iconsFeature(deps)];
  const metrics = serviceMetrics(deps.config.metricsToken, features);
  const continueChecks = features.flatMap((feature) => (feature.checkContinue ? [feature.checkContinue] : []));
  const health = healthHandlers(imagesDirReady(deps.config.imagesDir, deps.config.imghostMinFreeBytes));
  const routes: Route<ImghostLocals>[] = [
    { method: 'GET', path: '/healthz', handler: health.live },
    { method: 'GET', path: '/readyz', handler: health.ready },
    { method: 'GET', path: '/openapi.json', handler: openApiHandler(IMGHOST_OPENAPI) },
    { method: 'GET', path: '/metrics', handler: metrics.handler },
    ...features.flatMap((feature) => feature.routes),
  ];
  const app = createApp<ImghostLocals>({
    name: 'imghost',
    log: deps.log,
    trustProxy: deps.config.trustProxy,
    createLocals: () => ({}),
    renderError: renderImghostError,
    middleware: features.flatMap((feature) => feature.middleware ?? []),
    routes,
    metrics: metrics.http,
  });
  // Read by listen() (server.ts), like the handler's clientError.
  const handler = Object.assign(app, {
    checkContinue: (req: IncomingMessage) => continueChecks.every((accepts) => accepts(req)),
  });
  return {
    handler,
    /** The route table, as data (the OpenAPI completeness test walks it). */
    routes: routes.map(({ method, path }) => ({ method, path })),
    close: async () => {
      for (const feature of features) await feature.close?.();
    },
  };
}
