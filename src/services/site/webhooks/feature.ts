import type { Feature } from '../../../http/feature.js';
import { jsonBody } from '../../../http/json-body.js';
import type { Guards } from '../auth/guards.js';
import type { SiteDeps, SiteLocals } from '../context.js';
import { createWebhookWorker } from './delivery-worker.js';
import { deleteWebhookHandler, getWebhookHandler, listDeliveriesHandler, putWebhookHandler, WEBHOOK_BODY_LIMIT } from './webhook-routes.js';

/**
 * Webhooks: a user's URL that receives each of their notifications as a signed
 * POST. The routes set it and show the delivery history (session only: a token
 * gets 403); the worker started here delivers the queue, shared with the other
 * site processes, and stops with the site.
 */
export function webhooksFeature(deps: SiteDeps, guards: Guards): Feature<SiteLocals> {
  const options = deps.webhooks ?? {};
  const worker = createWebhookWorker(deps, { ports: deps.config.webhookPorts, outbound: deps.config.outbound, ...options });
  if (options.start !== false) {
    worker.start().catch((error: unknown) => deps.log.warn('webhook worker did not start', { err: error }));
  }
  return {
    routes: [
      { method: 'GET', path: '/apps/api/webhook', use: [guards.userRequired], handler: getWebhookHandler(deps) },
      { method: 'PUT', path: '/apps/api/webhook', use: [guards.userRequired, jsonBody({ limit: WEBHOOK_BODY_LIMIT })], handler: putWebhookHandler(deps) },
      { method: 'DELETE', path: '/apps/api/webhook', use: [guards.userRequired], handler: deleteWebhookHandler(deps) },
      { method: 'GET', path: '/apps/api/webhook/deliveries', use: [guards.userRequired], handler: listDeliveriesHandler(deps) },
    ],
    close: () => worker.stop(),
    metrics: () => worker.metrics(),
  };
}
