import type { Feature } from '../../../../http/feature.js';
import type { Guards } from '../../auth/guards.js';
import type { SiteDeps, SiteLocals } from '../../context.js';
import type { ImageHostClient } from '../../image-host/client.js';
import { createDeliveryDispatcher } from '../../webhooks/delivery-dispatcher.js';
import { createCheckWorker } from './check-worker.js';
import { requestCheckHandler } from './check-route.js';
import { startRecheckSchedule, SCHEDULE_INTERVAL_MS } from './recheck-schedule.js';

/** The whole of one check: fetch and inspection. */
export const CHECK_TIME_LIMIT_MS = 60_000;

/**
 * Package checks of outside download links (issue 33): fetched under the webhooks'
 * address rules, through the proxy of HTTPS_PROXY, inspected by the image host,
 * watched every EXTERNAL_RECHECK_HOURS; and an administrator's on-demand check.
 */
export function packageChecksFeature(deps: SiteDeps, guards: Guards, imageHost: ImageHostClient): Feature<SiteLocals> {
  const options = deps.packageChecks ?? {};
  const dispatcher = createDeliveryDispatcher({
    ports: deps.config.webhookPorts,
    outbound: deps.config.outbound,
    // The file is read in full, bounded by the fetch itself (PACKAGE_MAX_BYTES).
    maxResponseSize: null,
    headersTimeoutMs: 30_000,
    bodyTimeoutMs: 30_000,
    ...(options.addressAllowed ? { addressAllowed: options.addressAllowed } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  const worker = createCheckWorker(
    { sql: deps.sql, log: deps.log, dispatcher, inspector: imageHost, limits: { maxBytes: deps.config.packageMaxBytes, timeoutMs: options.timeoutMs ?? CHECK_TIME_LIMIT_MS } },
    options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs },
  );
  const running = options.start !== false;
  const schedule = startRecheckSchedule(deps, deps.config.externalRecheckHours * 3_600_000, options.scheduleIntervalMs ?? SCHEDULE_INTERVAL_MS, running);
  if (running) worker.start().catch((error: unknown) => deps.log.warn('package check worker did not start', { err: error }));
  return {
    routes: [
      { method: 'POST', path: '/apps/api/plugins/:id/package-check', use: [guards.adminRequired], handler: requestCheckHandler(deps) },
    ],
    close: async () => {
      schedule.stop();
      await worker.stop();
      await dispatcher.close().catch(() => undefined);
    },
  };
}
