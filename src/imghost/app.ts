import { access, constants, mkdir } from 'node:fs/promises';
import { createApp } from '../core/app.js';
import type { Feature } from '../core/feature.js';
import { healthRoutes } from '../core/health.js';
import type { ImghostDeps, ImghostLocals } from './context.js';
import { renderImghostError } from './errors.js';
import { iconsFeature } from './icons/feature.js';
import { imagesFeature } from './images/feature.js';

/** Service B: uploads, originals and WebP previews, icons. */
export async function createImghost(deps: ImghostDeps) {
  await mkdir(deps.config.imagesDir, { recursive: true });
  const features: Feature<ImghostLocals>[] = [await imagesFeature(deps), await iconsFeature(deps)];
  const handler = createApp<ImghostLocals>({
    name: 'imghost',
    log: deps.log,
    trustProxy: deps.config.trustProxy,
    createLocals: () => ({}),
    renderError: renderImghostError,
    middleware: features.flatMap((feature) => feature.middleware ?? []),
    routes: [...healthRoutes(() => imagesDirWorks(deps.config.imagesDir)), ...features.flatMap((feature) => feature.routes)],
  });
  return {
    handler,
    close: async () => {
      for (const feature of features) await feature.close?.();
    },
  };
}

async function imagesDirWorks(dir: string): Promise<boolean> {
  try {
    await access(dir, constants.R_OK | constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
