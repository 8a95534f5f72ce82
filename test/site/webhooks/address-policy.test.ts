// The address policy of webhook deliveries, table-driven: public unicast only, in
// every spelling an address can take (IPv4-mapped, NAT64, 6to4 included).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hostAddress, isPublicAddress } from '../../../src/services/site/webhooks/address-policy.js';
import { retryDelayMs } from '../../../src/services/site/webhooks/backoff.js';

const refused = [
  '0.0.0.0', '0.1.2.3', '10.0.0.1', '10.255.255.255', '100.64.0.1', '100.127.255.254', '127.0.0.1', '127.9.9.9',
  '169.254.169.254', '169.254.0.1', '172.16.0.1', '172.31.255.254', '192.0.0.8', '192.0.2.1', '192.88.99.1', '192.168.0.1',
  '198.18.0.1', '198.19.255.1', '198.51.100.7', '203.0.113.9', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255',
  '::', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '::127.0.0.1',
  'fe80::1', 'fe80::1%eth0', 'fc00::1', 'fd12:3456::1', 'ff02::1', 'ff05::2', 'fec0::1', '100::1', '2001:db8::1', '2001::1',
  '64:ff9b::7f00:1', '64:ff9b::a00:1', '2002:7f00:1::1', '2002:a9fe:a9fe::', '3fff::1',
  'not-an-address', '', 'receiver.test', '1.2.3', '01.02.03.04',
];
const allowed = [
  '1.1.1.1', '8.8.8.8', '93.184.215.14', '100.63.255.255', '100.128.0.1', '172.15.255.255', '172.32.0.1', '192.167.1.1', '223.255.255.255',
  '2606:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1',
];

for (const address of refused) {
  test(`refused: ${address || '(empty)'}`, () => assert.is(isPublicAddress(address), false));
}
for (const address of allowed) {
  test(`allowed: ${address}`, () => assert.is(isPublicAddress(address), true));
}

test('hostAddress: a URL hostname that is an address, without brackets; a name is not', () => {
  assert.is(hostAddress('[::1]'), '::1');
  assert.is(hostAddress('127.0.0.1'), '127.0.0.1');
  assert.is(hostAddress('receiver.test'), undefined);
  assert.is(hostAddress('[receiver.test]'), undefined);
});

test('retry waits: 30 s doubling, at most an hour', () => {
  assert.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 50].map(retryDelayMs), [30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000, 3_600_000]);
});

test.run();
