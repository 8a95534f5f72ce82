import { resolve } from 'node:path';
import { LOG_LEVELS, type LogLevel } from '../lib/log.js';
import { MAX_TRUSTED_HOPS } from '../http/client-ip.js';

// Every environment variable of the README's configuration table is read and
// checked here, once, at start-up. A bad value stops the process with one line
// naming the variable.

export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export interface OAuthConfig {
  authorizeUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  clientId: string;
  clientSecret: string;
  scope: string;
}

export interface Config {
  host: string;
  sitePort: number;
  imghostPort: number;
  dataDir: string;
  imagesDir: string;
  databaseUrl: string | undefined;
  publicUrl: string;
  /** Origin of PUBLIC_URL, for the cross-site check. */
  publicOrigin: string;
  secureCookies: boolean;
  imageHostUrl: string;
  imageHostPublicUrl: string;
  imghostUploadToken: string | undefined;
  imghostMaxBytes: number;
  /** Plugin packages (ZIP) kept by the image host: $DATA_DIR/packages. */
  packagesDir: string;
  /** PACKAGE_MAX_BYTES: the largest package upload, default 32 MiB. */
  packageMaxBytes: number;
  /** /readyz of the image host answers 503 when its disk has less free space. */
  imghostMinFreeBytes: number;
  iconsDir: string | undefined;
  launcherConfig: string;
  oauth: OAuthConfig | undefined;
  adminUsers: Set<string>;
  installScheme: string;
  /** Proxies in front of the service that append to X-Forwarded-For (TRUST_PROXY); 0 trusts none. */
  trustProxy: number;
  logLevel: LogLevel;
  /** Bearer token of GET /metrics (METRICS_TOKEN); unset, /metrics is 404 and nothing is counted. */
  metricsToken: string | undefined;
  /** Ports a webhook URL may name: 443, 8443 and WEBHOOK_ALLOWED_PORTS, ascending. */
  webhookPorts: number[];
}

type Env = Record<string, string | undefined>;

/**
 * Unless IMGHOST_MIN_FREE_BYTES says otherwise, the image host reports itself not
 * ready when its disk has room for fewer than this many uploads of the largest
 * size (64 MiB at the default 8 MiB; previews are smaller than their originals):
 * a load balancer moves traffic away before uploads start failing with 507.
 */
export const MIN_FREE_UPLOADS = 8;

/**
 * The ports webhooks are delivered to whatever WEBHOOK_ALLOWED_PORTS adds: any
 * port would let a user probe which ports answer on a public host through the
 * delivery history (a port scanner).
 */
export const WEBHOOK_PORTS = [443, 8443] as const;
/** WEBHOOK_ALLOWED_PORTS lists at most this many. */
export const MAX_EXTRA_WEBHOOK_PORTS = 32;

export function loadConfig(env: Env = process.env): Config {
  const read = (name: string) => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const host = read('HOST') ?? '127.0.0.1';
  if (!/^[A-Za-z0-9.:\-[\]%]+$/.test(host)) throw new ConfigError('HOST', `not a host name or address (got "${host}")`);
  const port = read('PORT') === undefined ? undefined : portFrom('PORT', read('PORT')!);
  const sitePort = read('SITE_PORT') === undefined ? (port ?? 3000) : portFrom('SITE_PORT', read('SITE_PORT')!);
  const imghostPort = read('IMGHOST_PORT') === undefined ? (port ?? 3001) : portFrom('IMGHOST_PORT', read('IMGHOST_PORT')!);
  const dataDir = resolve(read('DATA_DIR') ?? './data');

  const databaseUrl = read('DATABASE_URL');
  if (databaseUrl !== undefined) {
    const parsed = urlFrom('DATABASE_URL', databaseUrl);
    if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
      throw new ConfigError('DATABASE_URL', 'must be a postgres:// or postgresql:// URL');
    }
  }

  const publicUrl = httpUrl('PUBLIC_URL', read('PUBLIC_URL') ?? `http://localhost:${sitePort}`);
  const imageHostUrl = httpUrl('IMAGE_HOST_URL', read('IMAGE_HOST_URL') ?? `http://127.0.0.1:${imghostPort}`);
  const imageHostPublicUrl = httpUrl('IMAGE_HOST_PUBLIC_URL', read('IMAGE_HOST_PUBLIC_URL') ?? imageHostUrl);

  const token = read('IMGHOST_UPLOAD_TOKEN');
  if (token !== undefined && !/^[\x21-\x7E]{1,512}$/.test(token)) {
    throw new ConfigError('IMGHOST_UPLOAD_TOKEN', 'must be 1-512 visible ASCII characters');
  }

  const maxBytesText = read('IMGHOST_MAX_BYTES') ?? '8388608';
  if (!/^\d{1,12}$/.test(maxBytesText) || Number(maxBytesText) < 1) {
    throw new ConfigError('IMGHOST_MAX_BYTES', `must be a positive whole number of bytes (got "${maxBytesText}")`);
  }

  const packageMaxText = read('PACKAGE_MAX_BYTES') ?? String(32 * 1024 * 1024);
  if (!/^\d{1,12}$/.test(packageMaxText) || Number(packageMaxText) < 1) {
    throw new ConfigError('PACKAGE_MAX_BYTES', `must be a positive whole number of bytes (got "${packageMaxText}")`);
  }

  const minFreeText = read('IMGHOST_MIN_FREE_BYTES') ?? String(MIN_FREE_UPLOADS * Number(maxBytesText));
  if (!/^\d{1,15}$/.test(minFreeText)) {
    throw new ConfigError('IMGHOST_MIN_FREE_BYTES', `must be a whole number of bytes (got "${minFreeText}")`);
  }

  const metricsToken = read('METRICS_TOKEN');
  if (metricsToken !== undefined && !/^[\x21-\x7E]{1,512}$/.test(metricsToken)) {
    throw new ConfigError('METRICS_TOKEN', 'must be 1-512 visible ASCII characters');
  }

  const installScheme = read('INSTALL_SCHEME') ?? 'bloret';
  if (!/^[A-Za-z][A-Za-z0-9+.-]{0,31}$/.test(installScheme)) {
    throw new ConfigError('INSTALL_SCHEME', `must be a URL scheme such as "bloret" (got "${installScheme}")`);
  }

  const publicParsed = new URL(publicUrl);
  return {
    host,
    sitePort,
    imghostPort,
    dataDir,
    imagesDir: resolve(dataDir, 'images'),
    databaseUrl,
    publicUrl,
    publicOrigin: publicParsed.origin,
    secureCookies: publicParsed.protocol === 'https:',
    imageHostUrl,
    imageHostPublicUrl,
    imghostUploadToken: token,
    imghostMaxBytes: Number(maxBytesText),
    packagesDir: resolve(dataDir, 'packages'),
    packageMaxBytes: Number(packageMaxText),
    imghostMinFreeBytes: Number(minFreeText),
    iconsDir: read('ICONS_DIR') === undefined ? undefined : resolve(read('ICONS_DIR')!),
    launcherConfig: resolve(read('LAUNCHER_CONFIG') ?? './config/launcher.json'),
    oauth: oauthFrom(read),
    adminUsers: new Set(
      (read('ADMIN_USERS') ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    ),
    installScheme,
    trustProxy: trustedHopsFrom(read('TRUST_PROXY') ?? 'false'),
    logLevel: logLevelFrom(read('LOG_LEVEL') ?? 'info'),
    metricsToken,
    webhookPorts: webhookPortsFrom(read('WEBHOOK_ALLOWED_PORTS')),
  };
}

/** WEBHOOK_ALLOWED_PORTS: comma-separated ports 1-65535 allowed besides 443 and 8443. */
function webhookPortsFrom(value: string | undefined): number[] {
  const extra = value === undefined ? [] : value.split(',').map((entry) => entry.trim());
  if (extra.length > MAX_EXTRA_WEBHOOK_PORTS) throw new ConfigError('WEBHOOK_ALLOWED_PORTS', `lists at most ${MAX_EXTRA_WEBHOOK_PORTS} ports`);
  for (const entry of extra) {
    if (!/^\d{1,5}$/.test(entry) || Number(entry) < 1 || Number(entry) > 65535) {
      throw new ConfigError('WEBHOOK_ALLOWED_PORTS', `must be comma-separated port numbers from 1 to 65535 (got "${value}")`);
    }
  }
  return [...new Set([...WEBHOOK_PORTS, ...extra.map(Number)])].sort((a, b) => a - b);
}

function oauthFrom(read: (name: string) => string | undefined): OAuthConfig | undefined {
  const names = ['OAUTH_AUTHORIZE_URL', 'OAUTH_TOKEN_URL', 'OAUTH_USERINFO_URL', 'OAUTH_CLIENT_ID'] as const;
  const present = names.filter((name) => read(name) !== undefined);
  if (present.length === 0) return undefined;
  const missing = names.find((name) => read(name) === undefined);
  if (missing) throw new ConfigError(missing, `is required when ${present[0]} is set`);
  return {
    authorizeUrl: httpUrl('OAUTH_AUTHORIZE_URL', read('OAUTH_AUTHORIZE_URL')!),
    tokenUrl: httpUrl('OAUTH_TOKEN_URL', read('OAUTH_TOKEN_URL')!),
    userinfoUrl: httpUrl('OAUTH_USERINFO_URL', read('OAUTH_USERINFO_URL')!),
    clientId: read('OAUTH_CLIENT_ID')!,
    clientSecret: read('OAUTH_CLIENT_SECRET') ?? '',
    scope: read('OAUTH_SCOPE') ?? 'openid profile',
  };
}

function portFrom(name: string, value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) {
    throw new ConfigError(name, `must be a port number from 0 to 65535 (got "${value}")`);
  }
  return Number(value);
}

function urlFrom(name: string, value: string): URL {
  try {
    return new URL(value);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
}

/** An http(s) URL, returned without a trailing slash so paths can be appended. */
function httpUrl(name: string, value: string): string {
  const url = urlFrom(name, value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(name, 'must be an http:// or https:// URL');
  if (url.username || url.password) throw new ConfigError(name, 'must not contain a user name or password');
  return url.href.replace(/\/+$/, '');
}

function logLevelFrom(value: string): LogLevel {
  const level = LOG_LEVELS.find((known) => known === value.toLowerCase());
  if (level === undefined) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')} (got "${value}")`);
  return level;
}

/** TRUST_PROXY: false (0), true (1: one proxy), or the number of proxies in the chain. */
function trustedHopsFrom(value: string): number {
  if (/^\d{1,2}$/.test(value) && Number(value) <= MAX_TRUSTED_HOPS) return Number(value);
  try {
    return booleanFrom('TRUST_PROXY', value) ? 1 : 0;
  } catch {
    throw new ConfigError('TRUST_PROXY', `must be true, false or the number of trusted proxies, 0 to ${MAX_TRUSTED_HOPS} (got "${value}")`);
  }
}

function booleanFrom(name: string, value: string): boolean {
  const lower = value.toLowerCase();
  if (lower === 'true' || lower === '1' || lower === 'yes') return true;
  if (lower === 'false' || lower === '0' || lower === 'no') return false;
  throw new ConfigError(name, `must be true or false (got "${value}")`);
}
