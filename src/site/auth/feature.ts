import type { Feature } from '../../core/feature.js';
import type { SiteDeps, SiteLocals } from '../context.js';

// Placeholder until login and sessions land.
export function authFeature(_deps: SiteDeps): Feature<SiteLocals> {
  return { routes: [] };
}
