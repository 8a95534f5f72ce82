import type { Feature } from '../../core/feature.js';
import { createGuards } from '../auth/guards.js';
import type { SiteDeps, SiteLocals } from '../context.js';
import { auditHandler } from './audit-route.js';

/**
 * The audit log: administrators' actions, recorded by the features that perform
 * them (audit-log.ts, in their own transactions), read here by administrators.
 */
export function auditFeature(deps: SiteDeps): Feature<SiteLocals> {
  const guards = createGuards(deps);
  return {
    routes: [{ method: 'GET', path: '/apps/api/audit', use: [guards.adminRequired], handler: auditHandler(deps) }],
  };
}
