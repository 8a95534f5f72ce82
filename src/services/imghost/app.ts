import { mkdir } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { createApp } from '../../http/app.js';
import type { Feature } from '../../http/feature.js';
import type { Route } from '../../http/context.js';
import { healthHandlers } from '../../http/health.js';
import { openApiHandler } from '../../http/openapi-route.js';
import { serviceMetrics } from '../../http/metrics/service-metrics.js';
import { IMGHOST_OPENAPI } from './openapi/document.js';
import type { ImghostDeps, ImghostLocals } from './context.js';
import { renderImghostError } from './errors.js';
import { iconsFeature } from './icons/feature.js';
import { imagesFeature } from './images/feature.js';
import { packagesFeature } from './packages/feature.js';
import { imagesDirReady } from './readiness.js';
import { openObjectStorage } from './storage/object-storage.js';

/** Service B: uploads, originals and WebP previews, icons. */
export async function createImghost(deps: ImghostDeps) {
  await mkdir(deps.config.imagesDir, { recursive: true });
  const storage = deps.config.storage;
  const bucket = storage.kind === 's3' ? await openObjectStorage(storage, deps.log.child({ feature: 'storage' }), deps.now) : null;
  if (storage.kind === 's3') {
    deps.log.info('files are kept in a bucket', { bucket: storage.s3.bucket, prefix: storage.prefix, endpoint: storage.s3.endpoint, cacheMaxBytes: storage.cacheMaxBytes });
  }
  const features: Feature<ImghostLocals>[] = [await imagesFeature(deps, bucket), await packagesFeature(deps, bucket), await iconsFeature(deps)];
  const metrics = serviceMetrics(deps.config.metricsToken, features);
  const continueChecks = features.flatMap((feature) => (feature.checkContinue ? [feature.checkContinue] : []));
  const diskReady = imagesDirReady(deps.config.imagesDir, deps.config.imghostMinFreeBytes);
  // With a bucket, the local disk still holds uploads being received and the cache.
  const health = healthHandlers(bucket ? async () => (await Promise.all([diskReady(), bucket.ready()])).every(Boolean) : diskReady);
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
      await bucket?.close();
    },
  };
}
