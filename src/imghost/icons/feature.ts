import type { Feature } from '../../core/feature.js';
import type { ImghostDeps, ImghostLocals } from '../context.js';

// Placeholder until /SF and /api/svg_files land.
export function iconsFeature(_deps: ImghostDeps): Feature<ImghostLocals> {
  return { routes: [] };
}
