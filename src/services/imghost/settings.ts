import { resolve } from 'node:path';
import { byteCountFrom, ConfigError, envReader, type Env } from '../../settings/env.js';
import { loadSharedSettings, type SharedSettings } from '../../settings/shared.js';
import { loadStorageSettings, type StorageSettings } from './storage/storage-settings.js';

/** The image host's settings (docs/configuration.md): its own and the shared ones. */
export interface ImghostSettings extends SharedSettings {
  imagesDir: string;
  imghostMaxBytes: number;
  /** Plugin packages (ZIP) kept by the image host: $DATA_DIR/packages. */
  packagesDir: string;
  /** /readyz of the image host answers 503 when its disk has less free space. */
  imghostMinFreeBytes: number;
  iconsDir: string | undefined;
  /** STORAGE_URL and the S3_* settings: the disk (unset) or a bucket (storage/storage-settings.ts). */
  storage: StorageSettings;
}

/**
 * Unless IMGHOST_MIN_FREE_BYTES says otherwise, the image host reports itself not
 * ready when its disk has room for fewer than this many uploads of the largest
 * size (64 MiB at the default 8 MiB; previews are smaller than their originals):
 * a load balancer moves traffic away before uploads start failing with 507.
 */
export const MIN_FREE_UPLOADS = 8;

export function loadImghostSettings(env: Env, shared: SharedSettings = loadSharedSettings(env)): ImghostSettings {
  const read = envReader(env);
  const maxBytes = byteCountFrom('IMGHOST_MAX_BYTES', read('IMGHOST_MAX_BYTES') ?? '8388608');
  const minFreeText = read('IMGHOST_MIN_FREE_BYTES') ?? String(MIN_FREE_UPLOADS * maxBytes);
  if (!/^\d{1,15}$/.test(minFreeText)) {
    throw new ConfigError('IMGHOST_MIN_FREE_BYTES', `must be a whole number of bytes (got "${minFreeText}")`);
  }
  return {
    ...shared,
    imagesDir: resolve(shared.dataDir, 'images'),
    imghostMaxBytes: maxBytes,
    packagesDir: resolve(shared.dataDir, 'packages'),
    imghostMinFreeBytes: Number(minFreeText),
    iconsDir: read('ICONS_DIR') === undefined ? undefined : resolve(read('ICONS_DIR')!),
    storage: loadStorageSettings(read, shared.dataDir),
  };
}
