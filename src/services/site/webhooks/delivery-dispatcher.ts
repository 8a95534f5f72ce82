import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { buildConnector, type Dispatcher } from 'undici';
import { createOutboundAgent } from '../outbound/outbound-agent.js';
import type { OutboundSettings } from '../outbound/proxy-settings.js';
import { WEBHOOK_PORTS } from '../settings.js';
import { hostAddress, isPublicAddress } from './address-policy.js';

// The undici dispatcher every webhook delivery goes through. Its connector is where
// server-side request forgery is stopped: a host name is resolved by our own
// lookup, every address it resolves to must pass the address policy, and the
// socket connects to exactly the address that was checked (the lookup hands only
// that one to the socket), so a name that changes its answer between a check and
// the connection (DNS rebinding) gains nothing. An address in the URL itself is
// checked before connecting, and the port before anything (the URL's rules are
// checked when it is set, and again here: a stored URL may predate them or the
// configuration). TLS still verifies the certificate for the name.
//
// Behind a proxy (HTTPS_PROXY, outbound/outbound-agent.ts) the proxy resolves the
// name and the site never sees the address: every request is still checked before
// it is sent (the scheme, the port, an address in the URL, localhost names), and
// the proxy must refuse private ranges itself (docs/operations.md). Hosts that
// NO_PROXY names are reached directly, through the checking connector above.

/** Resolves a host name to all its addresses (A and AAAA). */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

export const WEBHOOK_CONNECT_TIMEOUT_MS = 5_000;
export const WEBHOOK_HEADERS_TIMEOUT_MS = 10_000;
export const WEBHOOK_BODY_TIMEOUT_MS = 10_000;

/** Why a delivery was not even attempted: the host is or resolves to a refused address. */
export class AddressRefusedError extends Error {
  readonly code = 'WEBHOOK_ADDRESS_REFUSED';
  constructor(host: string, address: string) {
    super(host === address ? `address ${address} is not public` : `${host} resolves to ${address}, which is not public`);
    this.name = 'AddressRefusedError';
  }
}

/** Why a delivery was not even attempted: the URL's port is not an allowed one. */
export class PortRefusedError extends Error {
  readonly code = 'WEBHOOK_PORT_REFUSED';
  constructor(port: number) {
    super(`port ${port} is not allowed for webhooks`);
    this.name = 'PortRefusedError';
  }
}

export interface DeliveryDispatcherOptions {
  /** The ports deliveries may go to: the configuration's (SiteSettings.webhookPorts); 443 and 8443 unless given. */
  ports?: readonly number[];
  resolve?: Resolver;
  /**
   * The address policy; isPublicAddress unless a test passes its own (there is no
   * configuration for it: production always runs the real policy).
   */
  addressAllowed?: (address: string) => boolean;
  /** Trusted CA certificates (PEM), replacing Node's default store; tests trust their receiver's self-signed one. */
  ca?: string | Buffer | string[];
  /** Proxies (and the trusted roots, used unless `ca` is given); none unless given. */
  outbound?: OutboundSettings;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Bytes an answer may have: 64 KiB (a receiver's answer is drained and dropped); null: unbounded, the caller bounds its reads. */
  maxResponseSize?: number | null;
  /** Connections per origin. */
  connections?: number;
}

/** Why a request was not sent: its URL is not https. */
export class SchemeRefusedError extends Error {
  readonly code = 'WEBHOOK_SCHEME_REFUSED';
  constructor() {
    super('only https URLs are reached');
    this.name = 'SchemeRefusedError';
  }
}

/** A name that is loopback by definition (RFC 6761): refused before anything is sent. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * What is checked of every request before it is dispatched, proxied or not: https,
 * an allowed port, no address in the URL outside the policy, no localhost name.
 * Throws the refusal (undici's request rejects with it; nothing is sent).
 */
export function checkTarget(origin: string | URL, ports: readonly number[], allowed: (address: string) => boolean): void {
  const url = typeof origin === 'string' ? new URL(origin) : origin;
  if (url.protocol !== 'https:') throw new SchemeRefusedError();
  const port = url.port === '' ? 443 : Number(url.port);
  if (!ports.includes(port)) throw new PortRefusedError(port);
  const address = hostAddress(url.hostname);
  if (address !== undefined && !allowed(address)) throw new AddressRefusedError(address, address);
  if (isLocalhostName(url.hostname)) throw new AddressRefusedError(url.hostname, 'localhost');
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export function createDeliveryDispatcher(options: DeliveryDispatcherOptions = {}): Dispatcher {
  const resolve = options.resolve ?? systemResolver;
  const allowed = options.addressAllowed ?? isPublicAddress;
  const ports: readonly number[] = options.ports ?? WEBHOOK_PORTS;

  const pinnedLookup = (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'WEBHOOK_DNS_FAILED' }), '');
        const bad = addresses.find((address) => !isIP(address) || !allowed(address));
        if (bad !== undefined) return callback(new AddressRefusedError(hostname, bad), '');
        const address = addresses[0]!;
        const family = isIP(address);
        if (lookupOptions.all) callback(null, [{ address, family }]);
        else callback(null, address, family);
      },
      // Named as a resolution failure whatever the resolver threw (failure-reasons.ts).
      (error: unknown) => callback(Object.assign(new Error(`resolving ${hostname} failed`, { cause: error }), { code: 'WEBHOOK_DNS_FAILED' }), ''),
    );
  };

  const connectTimeoutMs = options.connectTimeoutMs ?? WEBHOOK_CONNECT_TIMEOUT_MS;
  const ca = options.ca ?? options.outbound?.ca;
  const connector = buildConnector({
    timeout: connectTimeoutMs,
    // Passed on to tls.connect, and by it to net.connect.
    lookup: pinnedLookup,
    ...(ca ? { ca } : {}),
  } as buildConnector.BuildOptions);
  const outbound: OutboundSettings = { httpsProxy: undefined, httpProxy: undefined, noProxy: '', ...options.outbound, ca: ca === undefined ? undefined : [ca].flat().map(String) };
  const maxResponseSize = options.maxResponseSize === undefined ? 64 * 1024 : options.maxResponseSize;

  const agent = createOutboundAgent({
    outbound,
    connectTimeoutMs,
    connect: (connectOptions, callback) => {
      if (connectOptions.protocol !== 'https:') return callback(new Error('webhooks are delivered over https only'), null);
      // undici passes the URL's port, empty for https' default.
      const port = connectOptions.port ? Number(connectOptions.port) : 443;
      if (!ports.includes(port)) return callback(new PortRefusedError(port), null);
      // net.connect skips the lookup for an address: check it here.
      const address = hostAddress(connectOptions.hostname);
      if (address !== undefined && !allowed(address)) return callback(new AddressRefusedError(address, address), null);
      return connector(connectOptions, callback);
    },
    headersTimeout: options.headersTimeoutMs ?? WEBHOOK_HEADERS_TIMEOUT_MS,
    bodyTimeout: options.bodyTimeoutMs ?? WEBHOOK_BODY_TIMEOUT_MS,
    // Few deliveries per receiver at once; idle connections are not kept long.
    connections: options.connections ?? 2,
    keepAliveTimeout: 4_000,
    ...(maxResponseSize === null ? {} : { maxResponseSize }),
  });
  return agent.compose((dispatch) => (dispatchOptions, handler) => {
    checkTarget(dispatchOptions.origin!, ports, allowed);
    return dispatch(dispatchOptions, handler);
  });
}
