import { BlockList, isIP } from 'node:net';

// Which addresses a webhook may reach: public unicast only. Checked on the URL's
// host when it is an address (when the webhook is set, and again at delivery),
// and on every address a host name resolves to at delivery (delivery-dispatcher.ts),
// so a webhook can never make the site call into its own network (SSRF).

const refused = new BlockList();
// IPv4: "this network", private (RFC 1918), CGNAT, loopback, link-local (cloud
// metadata at 169.254.169.254), IETF protocol assignments, documentation,
// 6to4 relay, benchmarking, multicast, reserved and broadcast.
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  refused.addSubnet(network, prefix, 'ipv4');
}
// IPv6 outside global unicast (2000::/3) is refused below; within it: Teredo and
// ORCHID/benchmarking (2001::/23 covers both IETF blocks), documentation.
for (const [network, prefix] of [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['3fff::', 20],
] as const) {
  refused.addSubnet(network, prefix, 'ipv6');
}

/**
 * The IPv4 address an IPv6 address carries when it is IPv4-mapped (::ffff:a.b.c.d),
 * NAT64 (64:ff9b::/96) or 6to4 (2002:AABB:CCDD::/48); else undefined.
 */
function embeddedIpv4(groups: number[]): string | undefined {
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!);
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (a valid one: isIP said 6). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0]!;
  // A trailing dotted IPv4 (::ffff:1.2.3.4) becomes two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = text.slice(0, dotted.index) + ((a << 8) | b).toString(16) + ':' + ((c << 8) | d).toString(16);
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const missing = 8 - left.length - right.length;
  return [...left, ...Array<number>(tail === undefined ? 0 : missing).fill(0), ...right];
}

/** True when `address` (an IPv4 or IPv6 literal, no brackets) is public unicast; false for anything else, non-addresses included. */
export function isPublicAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return !refused.check(address, 'ipv4');
  if (version !== 6) return false;
  const groups = ipv6Groups(address);
  const embedded = embeddedIpv4(groups);
  if (embedded !== undefined) return isPublicAddress(embedded);
  // Global unicast is 2000::/3; everything else (::, ::1, fc00::/7, fe80::/10, ff00::/8...) is not.
  if ((groups[0]! & 0xe000) !== 0x2000) return false;
  return !refused.check(address.split('%')[0]!, 'ipv6');
}

/** A URL's hostname as an address when it is one ("[::1]" → "::1"); undefined for a name. */
export function hostAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : undefined;
}
