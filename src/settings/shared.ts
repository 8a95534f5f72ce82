import { resolve } from 'node:path';
import type { LogLevel } from '../lib/log.js';
import { byteCountFrom, ConfigError, envReader, logLevelFrom, portFrom, secretFrom, trustedHopsFrom, urlFrom, type Env } from './env.js';

/**
 * What both services read: where each listens (the site's default image host URL
 * is the image host's port), the data folder, the database, the package size and
 * upload token (the site relays packages, the image host keeps them), proxies, logs and metrics.
 */
export interface SharedSettings {
  host: string;
  sitePort: number;
  imghostPort: number;
  dataDir: string;
  databaseUrl: string | undefined;
  /** PACKAGE_MAX_BYTES: the largest plugin package, default 32 MiB (the site relays it, the image host keeps it). */
  packageMaxBytes: number;
  /** IMGHOST_UPLOAD_TOKEN: sent by the site, required by the image host. */
  imghostUploadToken: string | undefined;
  /** Proxies in front of the service that append to X-Forwarded-For (TRUST_PROXY); 0 trusts none. */
  trustProxy: number;
  logLevel: LogLevel;
  /** Bearer token of GET /metrics (METRICS_TOKEN); unset, /metrics is 404 and nothing is counted. */
  metricsToken: string | undefined;
}

export function loadSharedSettings(env: Env): SharedSettings {
  const read = envReader(env);
  const host = read('HOST') ?? '127.0.0.1';
  if (!/^[A-Za-z0-9.:\-[\]%]+$/.test(host)) throw new ConfigError('HOST', `not a host name or address (got "${host}")`);
  const port = read('PORT') === undefined ? undefined : portFrom('PORT', read('PORT')!);
  const sitePort = read('SITE_PORT') === undefined ? (port ?? 3000) : portFrom('SITE_PORT', read('SITE_PORT')!);
  const imghostPort = read('IMGHOST_PORT') === undefined ? (port ?? 3001) : portFrom('IMGHOST_PORT', read('IMGHOST_PORT')!);

  const databaseUrl = read('DATABASE_URL');
  if (databaseUrl !== undefined) {
    const parsed = urlFrom('DATABASE_URL', databaseUrl);
    if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
      throw new ConfigError('DATABASE_URL', 'must be a postgres:// or postgresql:// URL');
    }
  }
  return {
    host,
    sitePort,
    imghostPort,
    dataDir: resolve(read('DATA_DIR') ?? './data'),
    databaseUrl,
    packageMaxBytes: byteCountFrom('PACKAGE_MAX_BYTES', read('PACKAGE_MAX_BYTES') ?? String(32 * 1024 * 1024)),
    imghostUploadToken: secretFrom('IMGHOST_UPLOAD_TOKEN', read('IMGHOST_UPLOAD_TOKEN')),
    trustProxy: trustedHopsFrom(read('TRUST_PROXY') ?? 'false'),
    logLevel: logLevelFrom(read('LOG_LEVEL') ?? 'info'),
    metricsToken: secretFrom('METRICS_TOKEN', read('METRICS_TOKEN')),
  };
}
