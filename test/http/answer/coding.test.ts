import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { acceptedCoding, preferredCoding } from '../../../src/http/answer/coding.js';

const cases = [
  { what: 'absent', header: undefined, coding: undefined },
  { what: 'browsers', header: 'gzip, deflate, br, zstd', coding: 'br' },
  { what: 'gzip only', header: 'gzip', coding: 'gzip' },
  { what: 'x-gzip', header: 'x-gzip', coding: 'gzip' },
  { what: 'br refused by q=0', header: 'br;q=0, gzip', coding: 'gzip' },
  { what: 'both refused', header: 'br;q=0, gzip;q=0', coding: undefined },
  { what: 'identity only', header: 'identity', coding: undefined },
  { what: 'any coding', header: '*', coding: 'br' },
  { what: 'any except br', header: 'br;q=0, *;q=0.5', coding: 'gzip' },
  { what: 'case and spaces', header: ' GZIP ; Q=0.5 ', coding: 'gzip' },
  { what: 'a broken q-value refuses', header: 'br;q=abc, gzip', coding: 'gzip' },
] as const;
for (const c of cases) {
  test(`preferredCoding: ${c.what}`, () => {
    assert.is(preferredCoding(c.header), c.coding);
    // The second time the header's decision is remembered: the same, a refusal included.
    assert.is(preferredCoding(c.header), c.coding);
  });
}

test('preferredCoding: more distinct headers than it remembers are still decided', () => {
  for (let i = 0; i < 200; i++) assert.is(preferredCoding(`gzip;q=0.${i % 9 + 1}, x-${i}`), 'gzip');
  assert.is(preferredCoding('br;q=0, gzip;q=0, x-last'), undefined);
});

// An answer kept in gzip only (http/answer/prepared.ts: packAnswer) goes out in gzip to whoever takes it, br-first clients included.
const gzipOnly = [
  { what: 'absent', header: undefined, coding: undefined },
  { what: 'browsers', header: 'gzip, deflate, br, zstd', coding: 'gzip' },
  { what: 'launchers', header: 'gzip, deflate', coding: 'gzip' },
  { what: 'br only', header: 'br', coding: undefined },
  { what: 'gzip refused', header: 'gzip;q=0, br', coding: undefined },
  { what: 'any coding', header: '*', coding: 'gzip' },
  { what: 'identity only', header: 'identity', coding: undefined },
] as const;
for (const c of gzipOnly) {
  test(`acceptedCoding of gzip only: ${c.what}`, () => {
    assert.is(acceptedCoding(c.header, ['gzip']), c.coding);
  });
}

test.run();
