import type { Feature } from '../../core/feature.js';
import type { SiteDeps, SiteLocals } from '../context.js';

// Placeholder until /api/info and /api/fastdownload land.
export function launcherFeature(_deps: SiteDeps): Feature<SiteLocals> {
  return { routes: [] };
}
