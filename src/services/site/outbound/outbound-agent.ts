import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import type { OutboundSettings } from './proxy-settings.js';

// The one way the site's requests to the internet get their dispatcher: through
// undici's EnvHttpProxyAgent when a proxy is configured (HTTPS_PROXY, HTTP_PROXY,
// NO_PROXY as curl reads them; the values come from the site's settings, never
// straight from process.env), a plain Agent otherwise, with the trusted roots of
// the settings for TLS to the destination and to an https proxy.

export interface OutboundAgentOptions {
  outbound: OutboundSettings;
  /**
   * How a direct connection is made (undici's `connect`: options, or a function
   * such as the webhooks' address-checking connector). A tunnel through a proxy
   * is made by the proxy agent instead: the proxy resolves the name.
   */
  connect: Agent.Options['connect'];
  /** Longest a TLS handshake through a proxy's tunnel may take. */
  connectTimeoutMs: number;
  headersTimeout: number;
  bodyTimeout: number;
  connections?: number;
  keepAliveTimeout?: number;
  /** Bytes an answer may have; unset: no bound (the caller bounds what it reads). */
  maxResponseSize?: number;
}

/** True when some URL would go through a proxy. */
export const usesProxy = (outbound: OutboundSettings): boolean => outbound.httpsProxy !== undefined || outbound.httpProxy !== undefined;

export function createOutboundAgent(options: OutboundAgentOptions): Dispatcher {
  const { outbound } = options;
  const common = {
    headersTimeout: options.headersTimeout,
    bodyTimeout: options.bodyTimeout,
    ...(options.connections !== undefined ? { connections: options.connections } : {}),
    ...(options.keepAliveTimeout !== undefined ? { keepAliveTimeout: options.keepAliveTimeout } : {}),
    ...(options.maxResponseSize !== undefined ? { maxResponseSize: options.maxResponseSize } : {}),
  };
  if (!usesProxy(outbound)) return new Agent({ ...common, connect: options.connect });
  const tls = { timeout: options.connectTimeoutMs, ...(outbound.ca ? { ca: outbound.ca } : {}) };
  return new EnvHttpProxyAgent({
    ...common,
    // Empty strings, never undefined: undefined would make undici read process.env itself.
    httpProxy: outbound.httpProxy ?? '',
    // An https URL with no HTTPS_PROXY goes through HTTP_PROXY (undici's reading).
    httpsProxy: outbound.httpsProxy ?? '',
    noProxy: outbound.noProxy,
    connect: options.connect,
    requestTls: tls,
    proxyTls: tls,
  });
}
