import type { IncomingMessage } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';

// The client address, as every per-address rule (login limits, install-click
// de-duplication, rate limits) and the request log see it.
//
// Behind proxies, each one appends the address it received the request from to
// X-Forwarded-For, so only the right end of the header is written by proxies we
// trust; everything to the left of it is whatever the client sent. With
// `trustedHops` proxies in front of us, the client is the `trustedHops`-th entry
// from the right (or the left-most one, when fewer were appended). Without a
// trusted proxy the header is ignored: the socket's peer is the client.
//
// IPv6 addresses come out as their /64 prefix ("2001:db8:1:2::/64"): one
// subscriber usually holds a whole /64 and can pick any address in it, so a rule
// per full IPv6 address would be a rule per request.

/** Most trusted proxies TRUST_PROXY may name; more is a configuration mistake. */
export const MAX_TRUSTED_HOPS = 10;
/** Longest X-Forwarded-For entry considered (an IPv6 address with a zone and a port). */
const MAX_ENTRY_LENGTH = 64;
const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;
const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
const BRACKETED_V6 = /^\[([^\]]+)\](?::\d{1,5})?$/;

/**
 * The client address of a request. `trustedHops` is the number of proxies in
 * front of this service that append to X-Forwarded-For (0: trust none).
 */
export function clientIp(req: IncomingMessage, trustedHops: number | boolean): string {
  const hops = trustedHops === true ? 1 : trustedHops === false ? 0 : trustedHops;
  if (hops > 0) {
    const header = req.headers['x-forwarded-for'];
    const forwarded = forwardedClient(Array.isArray(header) ? header.join(',') : header, hops);
    if (forwarded !== undefined) return forwarded;
  }
  return peerKey(req.socket);
}

/**
 * The peer's address key, worked out once per connection: a keep-alive connection
 * carries many requests from the one peer, and the request log reads it for each.
 * A WeakMap rather than a property on the socket, so sockets keep Node's shape.
 */
const peerKeys = new WeakMap<object, string>();

function peerKey(socket: IncomingMessage['socket'] | undefined): string {
  if (!socket) return 'unknown';
  const known = peerKeys.get(socket);
  if (known !== undefined) return known;
  const address = socket.remoteAddress;
  const key = addressKey(address) ?? 'unknown';
  // A socket already closed has no address to tell: nothing to remember.
  if (address !== undefined) peerKeys.set(socket, key);
  return key;
}

/**
 * The entry `hops` places from the right of an X-Forwarded-For value (the
 * left-most when there are fewer), as an address key; undefined when there is no
 * header or that entry is not an address. Only the last `hops` entries are looked
 * at, however long the header.
 */
export function forwardedClient(header: string | undefined, hops: number): string | undefined {
  if (!header) return undefined;
  let end = header.length;
  let start = header.lastIndexOf(',', end - 1) + 1;
  for (let hop = 1; hop < hops && start > 0; hop++) {
    end = start - 1;
    start = header.lastIndexOf(',', end - 1) + 1;
  }
  const entry = header.slice(start, end).trim();
  if (entry.length === 0 || entry.length > MAX_ENTRY_LENGTH) return undefined;
  return addressKey(unwrapPort(entry));
}

/**
 * An address as the key of per-address rules: IPv4 as is (IPv4-mapped IPv6
 * included), IPv6 as its /64 prefix; undefined when it is not an address.
 */
export function addressKey(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  if (isIPv4(address)) return address;
  const mapped = IPV4_MAPPED.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1];
  const zone = address.indexOf('%');
  const bare = zone === -1 ? address : address.slice(0, zone);
  return isIPv6(bare) ? ipv6Prefix64(bare) : undefined;
}

/** "[2001:db8::1]:443" → "2001:db8::1"; "192.0.2.1:80" → "192.0.2.1"; others unchanged. */
function unwrapPort(entry: string): string {
  const bracketed = BRACKETED_V6.exec(entry);
  if (bracketed) return bracketed[1]!;
  const withPort = IPV4_WITH_PORT.exec(entry);
  return withPort ? withPort[1]! : entry;
}

/** The first four groups of a valid IPv6 address, compressed form: "2001:db8:0:12::/64". */
function ipv6Prefix64(address: string): string {
  const [head = '', tail] = address.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const groups = [...headGroups];
  if (tail !== undefined) {
    const tailGroups = tail === '' ? [] : tail.split(':');
    // An embedded IPv4 tail ("::1.2.3.4") stands for two groups.
    const tailCount = tailGroups.length + (tailGroups.at(-1)?.includes('.') ? 1 : 0);
    for (let i = headGroups.length + tailCount; i < 8; i++) groups.push('0');
    groups.push(...tailGroups);
  }
  return (
    groups
      .slice(0, 4)
      .map((group) => parseInt(group, 16).toString(16))
      .join(':') + '::/64'
  );
}
