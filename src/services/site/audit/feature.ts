import type { Feature } from '../../../http/feature.js';
import type { Guards } from '../auth/guards.js';
import type { SiteDeps, SiteLocals } from '../context.js';
import { auditHandler } from './audit-route.js';

/**
 * The audit log: administrators' actions, recorded by the features that perform
 * them (src/services/site/audit-log.ts, in their own transactions), read here by administrators.
 */
export function auditFeature(deps: SiteDeps, guards: Guards): Feature<SiteLocals> {
  return {
    routes: [{ method: 'GET', path: '/apps/api/audit', use: [guards.adminRequired], handler: auditHandler(deps) }],
  };
}
