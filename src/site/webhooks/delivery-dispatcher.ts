import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
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
  /** Extra trusted CA certificates (PEM); tests trust their receiver's self-signed one. */
  ca?: string | Buffer;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
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

  const connector = buildConnector({
    timeout: options.connectTimeoutMs ?? WEBHOOK_CONNECT_TIMEOUT_MS,
    // Passed on to tls.connect, and by it to net.connect.
    lookup: pinnedLookup,
    ...(options.ca ? { ca: options.ca } : {}),
  } as buildConnector.BuildOptions);

  return new Agent({
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
    connections: 2,
    keepAliveTimeout: 4_000,
    maxResponseSize: 64 * 1024,
  });
}
