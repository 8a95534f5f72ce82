// The credential scanner over a corpus of real formats (made-up values) and of
// near-misses, each fed whole, cut in two at every place inside the credential,
// byte by byte, and in the inflater's chunk size; then its limits: binary entries,
// the bytes scanned per entry and per package.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_SECRET_LENGTH, SECRET_FORMATS } from '../../../src/services/imghost/packages/secret-formats.js';
import { createSecretScanner, SCAN_BYTES_PER_ENTRY, SNIFF_BYTES } from '../../../src/services/imghost/packages/secret-scanner.js';
import { nearMisses, secretSamples } from '../../fixtures/secret-corpus.js';

/** Prose long enough that the credential comes after the binary sniff, so chunk boundaries matter. */
const filler = (bytes: number) => 'Plugin notes: nothing secret here, only words. '.repeat(Math.ceil(bytes / 47)).slice(0, bytes);
const before = `${filler(SNIFF_BYTES + 1000)}\n`;
const after = '\nmore words after it\n';

function scanChunks(chunks: Buffer[], budget = { left: Infinity }): string[] {
  const scanner = createSecretScanner(budget);
  for (const chunk of chunks) scanner.update(chunk);
  return scanner.end();
}

/** `text` cut at each offset in `cuts`. */
function cutAt(text: string, cuts: number[]): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const edges = [0, ...cuts, bytes.length];
  return edges.slice(1).map((end, i) => bytes.subarray(edges[i], end));
}

const every = (text: string, size: number) => cutAt(text, Array.from({ length: Math.floor((Buffer.byteLength(text) - 1) / size) }, (_, i) => (i + 1) * size));

for (const sample of secretSamples()) {
  test(`found: ${sample.what}`, () => {
    assert.equal(scanChunks([Buffer.from(sample.text)]), [sample.kind], 'alone, whole');
    const text = before + sample.text + after;
    assert.equal(scanChunks([Buffer.from(text)]), [sample.kind], 'after prose, whole');
    // Every cut inside the credential and at its edges.
    for (let at = before.length - 1; at <= before.length + sample.text.length + 1; at++) {
      assert.equal(scanChunks(cutAt(text, [at])), [sample.kind], `cut at ${at - before.length}`);
    }
    assert.equal(scanChunks(every(text, 1).slice(0)), [sample.kind], 'byte by byte');
    assert.equal(scanChunks(every(text, 7)), [sample.kind], '7 bytes a chunk');
    assert.equal(scanChunks(every(text, 16 * 1024)), [sample.kind], "the inflater's 16 KiB chunks");
    assert.equal(scanChunks(cutAt(text + filler(3 * MAX_SECRET_LENGTH), [before.length + 3, before.length + 4 + MAX_SECRET_LENGTH])), [sample.kind], 'a chunk longer than the overlap after it');
  });
}

for (const miss of nearMisses()) {
  test(`not found: ${miss.what}`, () => {
    assert.equal(scanChunks([Buffer.from(miss.text)]), [], 'alone, whole');
    const text = before + miss.text + after;
    for (let at = before.length - 1; at <= before.length + miss.text.length + 1; at++) {
      assert.equal(scanChunks(cutAt(text, [at])), [], `cut at ${at - before.length}`);
    }
    assert.equal(scanChunks(every(text, 1)), [], 'byte by byte');
  });
}

test('a credential is not found in the longer run of token characters it starts (cut after its length)', () => {
  // "npm_" and 37 characters is no npm token; cut after 36, the first chunk alone would look like one.
  const long = `npm_${'aB3'.repeat(13)}`;
  const text = before + long + after;
  assert.equal(scanChunks(cutAt(text, [before.length + 4 + 36])), []);
});

test('each kind is reported once per entry, in the order of the formats, however many times it occurs', () => {
  const [github, , , , , , gitlab] = secretSamples();
  const text = [gitlab!.text, github!.text, github!.text, before, gitlab!.text].join('\n');
  assert.equal(scanChunks(every(text, 1000)), ['GitHub token', 'GitLab token']);
});

test('a NUL in the first 8,000 bytes makes an entry binary: not scanned', () => {
  const secret = secretSamples()[0]!.text;
  assert.equal(scanChunks([Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00]), Buffer.from(secret)])]), []);
  assert.equal(scanChunks(every(filler(SNIFF_BYTES - 1) + '\u0000' + secret, 100)), []);
  // A NUL after the sniffed bytes does not stop the scan.
  assert.equal(scanChunks(every(filler(SNIFF_BYTES) + '\u0000' + secret, 100)), ['GitHub token']);
});

test('a credential in a UTF-16 text file with its byte order mark is found, in either byte order', () => {
  // Windows PowerShell 5's `echo $token > token.txt` writes UTF-16LE with a BOM; its NULs are no binary file.
  const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();
  const cases: Array<{ what: string; bytes: Buffer; kinds: string[] }> = [
    { what: 'UTF-16LE, the token alone', bytes: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${secretSamples()[0]!.text}\r\n`, 'utf16le')]), kinds: ['GitHub token'] },
    { what: 'UTF-16LE after prose past the sniff', bytes: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(before + secretSamples()[0]!.text + after, 'utf16le')]), kinds: ['GitHub token'] },
    { what: 'UTF-16BE after Chinese prose', bytes: Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(`${'插件说明：'.repeat(2000)}${secretSamples()[0]!.text}`)]), kinds: ['GitHub token'] },
    { what: 'UTF-16LE without a byte order mark is still binary', bytes: Buffer.from(secretSamples()[0]!.text, 'utf16le'), kinds: [] },
  ];
  for (const c of cases) {
    assert.equal(scanChunks([c.bytes]), c.kinds, `${c.what}: whole`);
    // Odd chunk sizes cut characters in two.
    const odd: Buffer[] = [];
    for (let at = 0; at < c.bytes.length; at += 7) odd.push(c.bytes.subarray(at, at + 7));
    assert.equal(scanChunks(odd), c.kinds, `${c.what}: 7 bytes a chunk`);
    const big: Buffer[] = [];
    for (let at = 0; at < c.bytes.length; at += 16 * 1024 + 1) big.push(c.bytes.subarray(at, at + 16 * 1024 + 1));
    assert.equal(scanChunks(big), c.kinds, `${c.what}: 16 KiB + 1 a chunk`);
  }
});

test('text in UTF-8 around a credential does not hide it', () => {
  assert.equal(scanChunks(every(`${'插件说明：'.repeat(2000)}${secretSamples()[0]!.text}é`, 1)), ['GitHub token']);
});

test(`at most ${SCAN_BYTES_PER_ENTRY / 1024 / 1024} MiB of an entry are scanned`, () => {
  const secret = Buffer.from(secretSamples()[0]!.text);
  const within = Buffer.concat([Buffer.from(filler(SCAN_BYTES_PER_ENTRY - secret.length - 10)), secret]);
  assert.equal(scanChunks(cutAt(within.toString('latin1'), [65536])), ['GitHub token']);
  const past = Buffer.concat([Buffer.from(filler(SCAN_BYTES_PER_ENTRY + 10)), secret]);
  assert.equal(scanChunks([past.subarray(0, 65536), past.subarray(65536)]), []);
});

test("the package's budget is shared: once spent, later entries are not scanned", () => {
  const secret = secretSamples()[0]!.text;
  const budget = { left: 20_000 };
  assert.equal(scanChunks([Buffer.from(secret + filler(15_000))], budget), ['GitHub token']);
  assert.is(budget.left, 20_000 - Buffer.byteLength(secret) - 15_000);
  assert.equal(scanChunks([Buffer.from(filler(6000) + secret)], budget), []);
  assert.is(budget.left, 0);
});

test(`every format is bounded: at most ${MAX_SECRET_LENGTH} characters, so the overlap holds any match whole`, () => {
  for (const format of SECRET_FORMATS) {
    // No open-ended repetition anywhere: +, * or {n,}.
    assert.not.match(format.pattern.source.replace(/\\./g, '').replace(/\[[^\]]*\]/g, ''), /[+*]|\{\d+,\}/, format.kind);
    assert.ok(format.pattern.global, format.kind);
  }
  const longest = secretSamples().reduce((max, sample) => Math.max(max, sample.text.length), 0);
  assert.ok(longest > MAX_SECRET_LENGTH / 2, 'the corpus has long credentials (keys)');
});

test.run();
