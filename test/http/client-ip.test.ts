// The client address under TRUST_PROXY: the right-most X-Forwarded-For entry (or
// the one `hops` from the right), never one the client wrote; IPv6 bucketed by /64;
// the request log logs that address.
import type { IncomingMessage } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../src/http/app.js';
import { addressKey, clientIp, forwardedClient } from '../../src/http/client-ip.js';
import { createLogger } from '../../src/lib/log.js';
import { sendOk } from '../../src/http/answer/index.js';
import { listen } from '../../src/http/server.js';
import { renderSiteError } from '../../src/services/site/errors.js';

const request = (remoteAddress: string | undefined, forwardedFor?: string | string[]) =>
  ({ headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }, socket: { remoteAddress } }) as unknown as IncomingMessage;

const cases: Array<{ what: string; peer?: string; xff?: string | string[]; hops: number | boolean; expected: string }> = [
  { what: 'no proxy: the peer', peer: '192.0.2.1', hops: 0, expected: '192.0.2.1' },
  { what: 'no proxy: X-Forwarded-For ignored', peer: '192.0.2.1', xff: '198.51.100.1', hops: false, expected: '192.0.2.1' },
  { what: 'one proxy: the right-most entry', peer: '10.0.0.1', xff: '198.51.100.1', hops: 1, expected: '198.51.100.1' },
  { what: 'true means one proxy', peer: '10.0.0.1', xff: '198.51.100.1', hops: true, expected: '198.51.100.1' },
  { what: 'regression: a client-written left entry is not the client', peer: '10.0.0.1', xff: '10.1.4.7, 203.0.113.9', hops: 1, expected: '203.0.113.9' },
  { what: 'client-written garbage on the left is ignored', peer: '10.0.0.1', xff: 'x" injected, <b>, 203.0.113.9', hops: 1, expected: '203.0.113.9' },
  { what: 'two proxies: second from the right', peer: '10.0.0.1', xff: '1.1.1.1, 203.0.113.9, 10.0.0.2', hops: 2, expected: '203.0.113.9' },
  { what: 'fewer entries than hops: the left-most', peer: '10.0.0.1', xff: '203.0.113.9', hops: 3, expected: '203.0.113.9' },
  { what: 'two X-Forwarded-For headers count as one list', peer: '10.0.0.1', xff: ['6.6.6.6', '203.0.113.9'], hops: 1, expected: '203.0.113.9' },
  { what: 'spaces around entries', peer: '10.0.0.1', xff: ' 6.6.6.6 ,  203.0.113.9  ', hops: 1, expected: '203.0.113.9' },
  { what: 'IPv4 with a port', peer: '10.0.0.1', xff: '203.0.113.9:51234', hops: 1, expected: '203.0.113.9' },
  { what: 'the proxy appended garbage: the peer', peer: '10.0.0.1', xff: '6.6.6.6, not-an-address', hops: 1, expected: '10.0.0.1' },
  { what: 'empty right-most entry: the peer', peer: '10.0.0.1', xff: '6.6.6.6,', hops: 1, expected: '10.0.0.1' },
  { what: 'empty header: the peer', peer: '10.0.0.1', xff: '', hops: 1, expected: '10.0.0.1' },
  { what: 'over-long entry: the peer', peer: '10.0.0.1', xff: '1'.repeat(100), hops: 1, expected: '10.0.0.1' },
  { what: 'IPv6 entry bucketed by /64', peer: '10.0.0.1', xff: '2001:db8:aa:bb:1:2:3:4', hops: 1, expected: '2001:db8:aa:bb::/64' },
  { what: 'bracketed IPv6 with a port', peer: '10.0.0.1', xff: '[2001:db8:aa:bb::9]:443', hops: 1, expected: '2001:db8:aa:bb::/64' },
  { what: 'IPv6 peer bucketed by /64', peer: '2001:db8:0:1::5', hops: 0, expected: '2001:db8:0:1::/64' },
  { what: 'IPv4-mapped peer is IPv4', peer: '::ffff:127.0.0.1', hops: 0, expected: '127.0.0.1' },
  { what: 'no peer address', peer: undefined, hops: 0, expected: 'unknown' },
];
for (const c of cases) {
  test(`clientIp: ${c.what}`, () => assert.is(clientIp(request(c.peer, c.xff), c.hops), c.expected));
}

const keys: Array<{ what: string; address: string; expected: string | undefined }> = [
  { what: 'IPv4', address: '203.0.113.9', expected: '203.0.113.9' },
  { what: 'full IPv6', address: '2001:0db8:0000:0012:0000:0000:0000:0001', expected: '2001:db8:0:12::/64' },
  { what: 'compressed after the prefix', address: '2001:db8:1:2::', expected: '2001:db8:1:2::/64' },
  { what: 'compressed inside the prefix', address: '2001:db8::1', expected: '2001:db8:0:0::/64' },
  { what: 'loopback', address: '::1', expected: '0:0:0:0::/64' },
  { what: 'upper case', address: '2001:DB8:A:B::C', expected: '2001:db8:a:b::/64' },
  { what: 'embedded IPv4 tail', address: '64:ff9b:1:2::192.0.2.1', expected: '64:ff9b:1:2::/64' },
  { what: 'zone id', address: 'fe80::1%eth0', expected: 'fe80:0:0:0::/64' },
  { what: 'two addresses of one /64 share a key', address: '2001:db8:aa:bb:ffff:ffff:ffff:ffff', expected: '2001:db8:aa:bb::/64' },
  { what: 'not an address', address: 'localhost', expected: undefined },
  { what: 'IPv4 out of range', address: '256.1.1.1', expected: undefined },
  { what: 'two double colons', address: '1::2::3', expected: undefined },
];
for (const c of keys) {
  test(`addressKey: ${c.what}`, () => assert.is(addressKey(c.address), c.expected));
}

test('forwardedClient only looks at the last entries of a huge header', () => {
  const header = '9.9.9.9, '.repeat(2000) + '203.0.113.9';
  assert.is(forwardedClient(header, 1), '203.0.113.9');
  assert.is(forwardedClient(header, 2), '9.9.9.9');
});

test('regression: the request log logs the right-most X-Forwarded-For address under TRUST_PROXY', async () => {
  const lines: string[] = [];
  const log = createLogger({}, { level: 'info', write: (line) => void lines.push(line) });
  const handler = createApp<any>({
    name: 'test',
    log,
    trustProxy: 1,
    createLocals: () => ({}),
    renderError: renderSiteError,
    routes: [{ method: 'GET', path: '/ip', handler: (ctx) => sendOk(ctx, { ip: ctx.ip }) }],
  });
  const server = await listen(handler, '127.0.0.1', 0);
  try {
    const response = await fetch(server.url + '/ip', { headers: { 'x-forwarded-for': '10.1.2.7, 203.0.113.9' } });
    assert.equal(await response.json(), { success: true, ip: '203.0.113.9' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const line = lines.map((text) => JSON.parse(text)).find((entry) => entry.msg === 'request' && entry.path === '/ip');
    assert.ok(line, lines.join('\n'));
    assert.is(line.ip, '203.0.113.9');
  } finally {
    await server.close(500);
  }
});

test.run();
