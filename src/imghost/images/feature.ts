import type { Feature } from '../../core/feature.js';
import type { ImghostDeps, ImghostLocals } from '../context.js';

// Placeholder until upload, originals and WebP land.
export function imagesFeature(_deps: ImghostDeps): Feature<ImghostLocals> {
  return { routes: [] };
}
