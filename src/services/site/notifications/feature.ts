import type { Feature } from '../../../http/feature.js';
import { jsonBody } from '../../../http/json-body.js';
import type { Guards } from '../auth/guards.js';
import type { SiteDeps, SiteLocals } from '../context.js';
import { listNotificationsHandler, readNotificationsHandler, READ_BODY_LIMIT } from './notification-routes.js';

/**
 * Notifications: written by the features whose events they tell about (notify.ts,
 * in those events' transactions), read and marked read here by their recipient.
 */
export function notificationsFeature(deps: SiteDeps, guards: Guards): Feature<SiteLocals> {
  return {
    routes: [
      { method: 'GET', path: '/apps/api/notifications', use: [guards.userRequired], handler: listNotificationsHandler(deps) },
      { method: 'POST', path: '/apps/api/notifications/read', use: [guards.userRequired, jsonBody({ limit: READ_BODY_LIMIT })], handler: readNotificationsHandler(deps) },
    ],
  };
}
