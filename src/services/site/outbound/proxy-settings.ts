import { ConfigError, urlFrom, type EnvReader } from '../../../settings/env.js';
import { trustedRootsFrom } from './trust.js';

// How the site reaches the internet (webhook deliveries, package checks, the
// identity provider): through the proxies of HTTPS_PROXY and HTTP_PROXY, except for
// the hosts of NO_PROXY, as curl reads them (the lower-case names first), and
// trusting the extra roots of NODE_EXTRA_CA_CERTS as Node does. Calls inside the
// deployment (the image host, PostgreSQL) never go through a proxy.

export interface OutboundSettings {
  /** The proxy for https:// URLs (https_proxy, HTTPS_PROXY); falls back to httpProxy. */
  httpsProxy: string | undefined;
  /** The proxy for http:// URLs (http_proxy, HTTP_PROXY). */
  httpProxy: string | undefined;
  /** Hosts reached directly (no_proxy, NO_PROXY): names (a leading dot or *. covers subdomains), host:port, or *. */
  noProxy: string;
  /** The roots TLS trusts: Node's own and NODE_EXTRA_CA_CERTS's (trust.ts); undefined: Node's default store. */
  ca: string[] | undefined;
}

function proxyUrl(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const url = urlFrom(name, value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(name, 'must be an http:// or https:// proxy URL');
  return url.href;
}

export function outboundFrom(read: EnvReader): OutboundSettings {
  const either = (lower: string, upper: string) => (read(lower) !== undefined ? lower : upper);
  const httpsName = either('https_proxy', 'HTTPS_PROXY');
  const httpName = either('http_proxy', 'HTTP_PROXY');
  return {
    httpsProxy: proxyUrl(httpsName, read(httpsName)),
    httpProxy: proxyUrl(httpName, read(httpName)),
    noProxy: read('no_proxy') ?? read('NO_PROXY') ?? '',
    ca: trustedRootsFrom(read('NODE_EXTRA_CA_CERTS')),
  };
}
