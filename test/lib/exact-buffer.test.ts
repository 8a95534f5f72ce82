// Buffers kept for long own their memory (lib/exact-buffer.ts): a cache that counts
// an answer by its length holds what it counts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gzipSync } from 'node:zlib';
import { exactBuffer, exactBytes } from '../../src/lib/exact-buffer.js';
import { prepareJson } from '../../src/http/answer/index.js';

// Defect: a 900-byte gzip of a plugin's detail kept its 16 KiB zlib chunk alive, and
// a 2 KB JSON body its 8 KiB pool slab: outage copies counted at 620 bytes each
// weighed 16.8 KB.
test('exactBuffer: a gzip view of a 16 KiB chunk is copied into memory of its own, the same bytes', () => {
  const gzip = gzipSync(Buffer.from('plugin '.repeat(100)));
  assert.ok(gzip.buffer.byteLength >= 16 * 1024, 'zlib hands out a view of its chunk');
  const exact = exactBuffer(gzip);
  assert.is(exact.buffer.byteLength, gzip.length);
  assert.ok(exact.equals(gzip));
});

test('exactBuffer: a buffer that owns its memory is kept as it is', () => {
  const own = Buffer.allocUnsafeSlow(1000).fill(7);
  assert.is(exactBuffer(own), own);
});

test('exactBytes: short text is not a slice of the shared pool', () => {
  const pooled = Buffer.from('{"success":true}');
  assert.ok(pooled.buffer.byteLength > pooled.length, 'Buffer.from of short text is pooled');
  const bytes = exactBytes('{"success":true,"name":"插件"}');
  assert.is(bytes.buffer.byteLength, bytes.length);
  assert.is(bytes.toString(), '{"success":true,"name":"插件"}');
});

test('a prepared answer keeps its body and compressed forms in memory of their own', () => {
  const answer = prepareJson({ plugins: Array.from({ length: 400 }, (_, n) => ({ id: `p${n}` })) });
  assert.is(answer.body.buffer.byteLength, answer.body.length);
  for (const coding of ['gzip', 'br'] as const) {
    const form = answer.compressed(coding);
    assert.ok(form.length < 16 * 1024 && form.buffer.byteLength === form.length, `${coding}: ${form.length} in ${form.buffer.byteLength}`);
  }
});

test.run();
