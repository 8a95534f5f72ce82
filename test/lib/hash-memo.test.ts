// The memo of request bodies' SHA-256 (src/lib/hash-memo.ts): the same hash as
// hashing every time, whatever the bytes, within its bounds.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHashMemo, fingerprintOf } from '../../src/lib/hash-memo.js';
import { sha256Base64 } from '../../src/lib/sha256-base64.js';

const body = (text: string) => Buffer.from(text, 'utf8');
const big = (fill: string, length = 12_000) => Buffer.alloc(length, fill);

test('the hash of bytes seen before is the hash of the bytes', () => {
  const memo = createHashMemo({ maxEntries: 8, maxBytes: 1 << 20 });
  const cases = [
    { what: 'empty', bytes: body('') },
    { what: 'shorter than a word', bytes: body('{}') },
    { what: 'a small JSON body', bytes: body('{"plugins":[{"id":"a","version":"1.0.0"}]}') },
    { what: 'a 12 KB body', bytes: big('x') },
  ];
  for (const { what, bytes } of cases) {
    assert.is(memo.hashOf(bytes), sha256Base64(bytes), `${what}, first`);
    assert.is(memo.hashOf(Buffer.from(bytes)), sha256Base64(bytes), `${what}, again (other buffer, same bytes)`);
  }
  assert.is(memo.size, cases.length);
});

test('bytes that share the fingerprint but differ get their own hash', () => {
  const memo = createHashMemo({ maxEntries: 8, maxBytes: 1 << 20 });
  const first = big('a');
  const second = Buffer.from(first);
  // A byte between the sampled words: same length, same samples, other bytes.
  second[7] = 0x62;
  assert.is(fingerprintOf(first), fingerprintOf(second), 'the two collide on purpose');
  for (let round = 0; round < 3; round++) {
    assert.is(memo.hashOf(first), sha256Base64(first));
    assert.is(memo.hashOf(second), sha256Base64(second));
  }
  assert.is.not(sha256Base64(first), sha256Base64(second));
});

test('a body changed after it was hashed does not change the kept bytes', () => {
  const memo = createHashMemo({ maxEntries: 8, maxBytes: 1 << 20 });
  const bytes = big('q');
  const hash = memo.hashOf(bytes);
  bytes[100] = 0x72;
  assert.is(memo.hashOf(bytes), sha256Base64(bytes));
  assert.is.not(memo.hashOf(bytes), hash);
});

test('bounded by entries and bytes, least recently used first out; a body over the bound is not kept', () => {
  const byCount = createHashMemo({ maxEntries: 2, maxBytes: 1 << 20 });
  for (const fill of ['a', 'b', 'c']) byCount.hashOf(big(fill, 100));
  assert.is(byCount.size, 2);
  const byBytes = createHashMemo({ maxEntries: 100, maxBytes: 250 });
  byBytes.hashOf(big('a', 100));
  byBytes.hashOf(big('b', 100));
  byBytes.hashOf(big('a', 100)); // used again: 'b' is now the least recent
  byBytes.hashOf(big('c', 100));
  assert.is(byBytes.size, 2);
  assert.is(byBytes.bytes, 200);
  const tooBig = createHashMemo({ maxEntries: 100, maxBytes: 50 });
  assert.is(tooBig.hashOf(big('z', 100)), sha256Base64(big('z', 100)));
  assert.is(tooBig.size, 0);
});

test.run();
