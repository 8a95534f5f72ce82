import { resolve } from 'node:path';
import { ConfigError, envReader, httpUrl, type Env, type EnvReader } from '../../settings/env.js';
import { loadSharedSettings, type SharedSettings } from '../../settings/shared.js';
import { outboundFrom, type OutboundSettings } from './outbound/proxy-settings.js';

export interface OAuthConfig {
  authorizeUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  clientId: string;
  clientSecret: string;
  scope: string;
}

/** The site's settings (docs/configuration.md): its own and the shared ones. */
export interface SiteSettings extends SharedSettings {
  publicUrl: string;
  secureCookies: boolean;
  imageHostUrl: string;
  imageHostPublicUrl: string;
  launcherConfig: string;
  oauth: OAuthConfig | undefined;
  adminUsers: Set<string>;
  installScheme: string;
  /** Ports a webhook URL may name: 443, 8443 and WEBHOOK_ALLOWED_PORTS, ascending. */
  webhookPorts: number[];
  /** How long after PostgreSQL became unreachable the visitor answers this process holds are still served (STALE_IF_ERROR_SECONDS). */
  staleIfErrorSeconds: number;
  /** DOWNLOAD_HOSTS: the hosts (and their subdomains) a plugin's download may be on, lower case; empty: any https host. */
  downloadHosts: string[];
  /** Proxies and trusted roots for requests to the internet (outbound/proxy-settings.ts). */
  outbound: OutboundSettings;
  /** EXTERNAL_RECHECK_HOURS: how often each approved outside link is checked again (1-8760, default 24). */
  externalRecheckHours: number;
}

/**
 * The ports webhooks are delivered to whatever WEBHOOK_ALLOWED_PORTS adds: any
 * port would let a user probe which ports answer on a public host through the
 * delivery history (a port scanner).
 */
export const WEBHOOK_PORTS = [443, 8443] as const;
/** WEBHOOK_ALLOWED_PORTS lists at most this many. */
export const MAX_EXTRA_WEBHOOK_PORTS = 32;
/** STALE_IF_ERROR_SECONDS unset: ten minutes, as RFC 5861's stale-if-error examples go. */
export const DEFAULT_STALE_IF_ERROR_SECONDS = 600;
/** STALE_IF_ERROR_SECONDS at most: a day. */
export const MAX_STALE_IF_ERROR_SECONDS = 86_400;
/** DOWNLOAD_HOSTS lists at most this many hosts. */
export const MAX_DOWNLOAD_HOSTS = 64;

export function loadSiteSettings(env: Env, shared: SharedSettings = loadSharedSettings(env)): SiteSettings {
  const read = envReader(env);
  const publicUrl = httpUrl('PUBLIC_URL', read('PUBLIC_URL') ?? `http://localhost:${shared.sitePort}`);
  const imageHostUrl = httpUrl('IMAGE_HOST_URL', read('IMAGE_HOST_URL') ?? `http://127.0.0.1:${shared.imghostPort}`);
  const imageHostPublicUrl = httpUrl('IMAGE_HOST_PUBLIC_URL', read('IMAGE_HOST_PUBLIC_URL') ?? imageHostUrl);

  const installScheme = read('INSTALL_SCHEME') ?? 'bloret';
  if (!/^[A-Za-z][A-Za-z0-9+.-]{0,31}$/.test(installScheme)) {
    throw new ConfigError('INSTALL_SCHEME', `must be a URL scheme such as "bloret" (got "${installScheme}")`);
  }

  const downloadHosts = downloadHostsFrom(read('DOWNLOAD_HOSTS'));
  requireImageHostAmong(imageHostPublicUrl, downloadHosts);

  const publicParsed = new URL(publicUrl);
  return {
    ...shared,
    publicUrl,
    secureCookies: publicParsed.protocol === 'https:',
    imageHostUrl,
    imageHostPublicUrl,
    launcherConfig: resolve(read('LAUNCHER_CONFIG') ?? './config/launcher.json'),
    oauth: oauthFrom(read),
    adminUsers: new Set(
      (read('ADMIN_USERS') ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    ),
    installScheme,
    webhookPorts: webhookPortsFrom(read('WEBHOOK_ALLOWED_PORTS')),
    staleIfErrorSeconds: staleIfErrorFrom(read('STALE_IF_ERROR_SECONDS')),
    downloadHosts,
    outbound: outboundFrom(read),
    externalRecheckHours: recheckHoursFrom(read('EXTERNAL_RECHECK_HOURS')),
  };
}

// A host name as the launcher compares it (lower case, no port, no scheme): labels
// of letters, digits and hyphens, an IPv4 address included; an IDN in its xn-- form.
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** DOWNLOAD_HOSTS: comma-separated host names, lower-cased; blank entries and repeats dropped. */
function downloadHostsFrom(value: string | undefined): string[] {
  if (value === undefined) return [];
  // A leading dot means the same as none to the launcher (it strips it: `t.lower().lstrip(".")`).
  const hosts = [...new Set(value.split(',').map((entry) => entry.trim().toLowerCase().replace(/^\.+/, '')).filter((entry) => entry !== ''))];
  if (hosts.length > MAX_DOWNLOAD_HOSTS) throw new ConfigError('DOWNLOAD_HOSTS', `lists at most ${MAX_DOWNLOAD_HOSTS} hosts`);
  const bad = hosts.find((host) => !HOST_NAME.test(host));
  if (bad !== undefined) throw new ConfigError('DOWNLOAD_HOSTS', `must be comma-separated host names such as store.bloret.com, without scheme, port or path (got "${bad}")`);
  return hosts;
}

/**
 * Whether `host` (a URL's host name) is one of `hosts` or under one of them, as the
 * launcher matches: `host == t or host.endswith("." + t)`, both in lower case. Here
 * for DOWNLOAD_HOSTS; the store's download links use it too (store/download-hosts.ts).
 */
export function hostIsTrusted(host: string, hosts: readonly string[]): boolean {
  const lower = host.toLowerCase();
  return hosts.some((trusted) => lower === trusted || lower.endsWith(`.${trusted}`));
}

/**
 * Hosted packages are downloaded from IMAGE_HOST_PUBLIC_URL: with DOWNLOAD_HOSTS set,
 * that host must be among them, or every hosted plugin would be one launchers refuse.
 */
function requireImageHostAmong(imageHostPublicUrl: string, downloadHosts: string[]): void {
  if (downloadHosts.length === 0) return;
  const host = new URL(imageHostPublicUrl).hostname.toLowerCase();
  if (!hostIsTrusted(host, downloadHosts)) {
    throw new ConfigError(
      'IMAGE_HOST_PUBLIC_URL',
      `its host ${host} is not in DOWNLOAD_HOSTS (${downloadHosts.join(', ')}): launchers would refuse every hosted package; add it to DOWNLOAD_HOSTS or serve packages under one of those hosts`,
    );
  }
}

/** EXTERNAL_RECHECK_HOURS: whole hours, 1 to a year. */
function recheckHoursFrom(value: string | undefined): number {
  if (value === undefined) return 24;
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > 8760) {
    throw new ConfigError('EXTERNAL_RECHECK_HOURS', `must be a whole number of hours from 1 to 8760 (got "${value}")`);
  }
  return Number(value);
}

/** STALE_IF_ERROR_SECONDS: 0 (serve nothing stale) to a day. */
function staleIfErrorFrom(value: string | undefined): number {
  if (value === undefined) return DEFAULT_STALE_IF_ERROR_SECONDS;
  if (!/^\d{1,5}$/.test(value) || Number(value) > MAX_STALE_IF_ERROR_SECONDS) {
    throw new ConfigError('STALE_IF_ERROR_SECONDS', `must be a whole number of seconds from 0 to ${MAX_STALE_IF_ERROR_SECONDS} (got "${value}")`);
  }
  return Number(value);
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

function oauthFrom(read: EnvReader): OAuthConfig | undefined {
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
