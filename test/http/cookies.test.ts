import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_COOKIE_HEADER, MAX_COOKIE_PAIRS, parseCookies, serializeCookie } from '../../src/http/cookies.js';

const parseCases = [
  { what: 'simple pairs', header: 'a=1; b=2', expected: { a: '1', b: '2' } },
  { what: 'no spaces', header: 'a=1;b=2', expected: { a: '1', b: '2' } },
  { what: 'quoted value', header: 'a="x y"', expected: { a: 'x y' } },
  { what: 'first of duplicates wins', header: 'a=1; a=2', expected: { a: '1' } },
  { what: 'pair without = skipped', header: 'junk; a=1', expected: { a: '1' } },
  { what: 'empty name skipped', header: '=x; a=1', expected: { a: '1' } },
  { what: 'value with =', header: 'a=b=c', expected: { a: 'b=c' } },
  { what: 'percent-decoded', header: 'a=%E2%9C%93', expected: { a: '✓' } },
  { what: 'malformed percent kept raw', header: 'a=%E0%A4%A', expected: { a: '%E0%A4%A' } },
  { what: 'missing header', header: undefined, expected: {} },
  { what: 'regression: a header over 8 KiB keeps its cookies', header: 'big=' + 'x'.repeat(4000) + '; more=' + 'y'.repeat(4000) + '; other=' + 'z'.repeat(1000) + '; sid=abc', expected: { big: 'x'.repeat(4000), more: 'y'.repeat(4000), other: 'z'.repeat(1000), sid: 'abc' } },
  { what: 'an over-long pair is skipped, the others kept', header: 'a=' + 'x'.repeat(9000) + '; sid=abc', expected: { sid: 'abc' } },
];
for (const c of parseCases) {
  test(`parse: ${c.what}`, () => {
    assert.equal(Object.fromEntries(parseCookies(c.header)), c.expected);
  });
}

test('parse: bounded: what fits in MAX_COOKIE_HEADER is parsed, the pair crossing it and the rest are not', () => {
  // Pairs of exactly 1000 characters plus "; ": the bound falls inside pair 65.
  const pairs = Array.from({ length: 80 }, (_, i) => `k${String(i).padStart(2, '0')}=${'v'.repeat(996)}`);
  const header = pairs.join('; ');
  const cookies = parseCookies(header);
  const fits = Math.floor((MAX_COOKIE_HEADER + 2) / 1002);
  assert.is(cookies.size, fits);
  assert.ok(cookies.has('k00') && cookies.has(`k${String(fits - 1).padStart(2, '0')}`));
  assert.not.ok(cookies.has(`k${String(fits).padStart(2, '0')}`));
});

test('parse: bounded: at most MAX_COOKIE_PAIRS pairs are looked at', () => {
  const header = Array.from({ length: MAX_COOKIE_PAIRS + 50 }, (_, i) => `c${i}=1`).join('; ');
  const cookies = parseCookies(header);
  assert.is(cookies.size, MAX_COOKIE_PAIRS);
  assert.ok(cookies.has(`c${MAX_COOKIE_PAIRS - 1}`));
});

test('parse: a name like __proto__ is just a key', () => {
  const cookies = parseCookies('__proto__=x; constructor=y');
  assert.is(cookies.get('__proto__'), 'x');
  assert.is(cookies.get('constructor'), 'y');
});

test('serialize: attributes', () => {
  const value = serializeCookie('sid', 'abc_-', { maxAgeSeconds: 60, secure: true, sameSite: 'Lax' });
  assert.match(value, /^sid=abc_-; Max-Age=60; Expires=[^;]+ GMT; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
  assert.not.match(serializeCookie('a', 'b'), /Secure/);
});

const badSerialize = [
  { what: 'name with space', name: 'a b', value: 'x' },
  { what: 'name with =', name: 'a=', value: 'x' },
  { what: 'value with ;', name: 'a', value: 'x;y' },
  { what: 'value with space', name: 'a', value: 'x y' },
  { what: 'value with quote', name: 'a', value: 'x"' },
  { what: 'value with non-ASCII', name: 'a', value: 'é' },
];
for (const c of badSerialize) {
  test(`serialize refuses: ${c.what}`, () => {
    assert.throws(() => serializeCookie(c.name, c.value));
  });
}

test('serialize: bad path refused', () => {
  assert.throws(() => serializeCookie('a', 'b', { path: 'x;Domain=evil' }));
});

test.run();
