// Seeded randomized tests of the multipart parser. Valid bodies, cut into chunks at
// random points, must parse to exactly what was encoded; mutated or truncated
// bodies must either parse or reject with an HttpError, never anything else, never
// hang. A failure prints the seed and case number: set MULTIPART_FUZZ_SEED to replay.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { MultipartLimits } from '../../src/http/multipart/index.js';
import {
  byteChunks,
  collect,
  iterate,
  prng,
  randomChunks,
  randomInt,
  readableOf,
  wholeChunks,
  withTimeout,
  type Outcome,
  type Seen,
} from '../fixtures/multipart/harness.js';

const SEED = Number(process.env.MULTIPART_FUZZ_SEED ?? 0x7578_2046);
const VALID_BODIES = 2500; // each parsed whole and in two random cuttings, every 10th byte by byte
const MUTATED_BODIES = 5000;
const CASE_TIMEOUT_MS = 3000;
console.log(`multipart fuzz seed: ${SEED} (MULTIPART_FUZZ_SEED to replay)`);

const random = prng(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const chance = (p: number) => random() < p;

const BOUNDARY_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'()+_,-./:=? ";
const NAME_PIECES = ['a', 'b', 'Z', '0', '_', '-', ' ', 'é', '€', '😀', '"', '\\', '.', ';', '=', "'"];
const LIMITS: Partial<MultipartLimits> = { files: 10, fields: 10, parts: 20, fileBytes: 1 << 20, fieldBytes: 1 << 20 };

function randomBoundary(): string {
  const length = chance(0.5) ? randomInt(random, 1, 12) : randomInt(random, 1, 70);
  let boundary = '';
  for (let i = 0; i < length; i++) boundary += pick([...BOUNDARY_CHARS]);
  if (boundary.endsWith(' ')) boundary = `${boundary.slice(0, -1)}x`;
  return boundary;
}

// A filename's own characters: without separators, which the parser strips with the path.
const FILENAME_PIECES = NAME_PIECES.filter((piece) => piece !== '\\' && piece !== '/');

function randomName(maxPieces = 8, pieces: readonly string[] = NAME_PIECES): string {
  let name = '';
  const count = randomInt(random, 0, maxPieces);
  for (let i = 0; i < count; i++) name += pick(pieces);
  return name;
}

const quote = (value: string) => `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;

/** Bytes that look like the delimiter without being it. */
function randomContent(boundary: string, maxLength: number): Buffer {
  const pieces: Buffer[] = [];
  let length = 0;
  const target = chance(0.2) ? 0 : randomInt(random, 1, maxLength);
  while (length < target) {
    const kind = randomInt(random, 0, 6);
    let piece: Buffer;
    if (kind === 0) piece = Buffer.from('\r\n');
    else if (kind === 1) piece = Buffer.from(`\r\n--${boundary.slice(0, randomInt(random, 0, boundary.length - 1))}`);
    else if (kind === 2) piece = Buffer.from(`--${boundary}`);
    else if (kind === 3) piece = Buffer.from(pick(['\r', '\n', '-', '--', '\r\r\n', '\n--']));
    else {
      piece = Buffer.allocUnsafe(randomInt(random, 1, 64));
      for (let i = 0; i < piece.length; i++) piece[i] = randomInt(random, 0, 255);
    }
    pieces.push(piece);
    length += piece.length;
  }
  return Buffer.concat(pieces);
}

function randomText(boundary: string): string {
  const pieces = ['a', 'b', ' ', 'é', '€', '😀', '\r\n', '\r', '\n', '-', `--${boundary.slice(0, 2)}`, '\u0000'];
  let text = '';
  const count = chance(0.2) ? 0 : randomInt(random, 1, 40);
  for (let i = 0; i < count; i++) text += pick(pieces);
  return text;
}

interface Generated {
  body: Buffer;
  contentType: string;
  expected: Outcome;
  /** Offset just past the closing "--boundary--": cutting anywhere before it must give 400. */
  closeEnd: number;
}

function generate(): Generated {
  for (;;) {
    const boundary = randomBoundary();
    const delimiter = Buffer.from(`\r\n--${boundary}`);
    const contentType = `multipart/form-data; ${chance(0.5) ? 'boundary' : 'Boundary'}=${
      boundary.includes(' ') || chance(0.5) ? quote(boundary) : boundary
    }`;
    const pieces: Buffer[] = [];
    const add = (piece: string | Buffer) => pieces.push(typeof piece === 'string' ? Buffer.from(piece) : piece);
    const padding = () => (chance(0.1) ? pick([' ', '\t', '  \t']) : '');
    const parts: Seen[] = [];
    let clean = true;

    if (chance(0.3)) add(`Preamble text -- ${randomText('x').replace(/[\r\n]/g, '')}\r\n`);
    const count = randomInt(random, 0, 5);
    for (let i = 0; i < count; i++) {
      add(`--${boundary}${padding()}\r\n`);
      const name = randomName();
      const dispositionName = chance(0.1) ? 'content-disposition' : 'Content-Disposition';
      if (chance(0.5)) {
        const value = randomText(boundary);
        add(`${dispositionName}: form-data; name=${quote(name)}\r\n`);
        if (chance(0.3)) add('Content-Type: text/plain; charset=utf-8\r\n');
        add('\r\n');
        add(value);
        parts.push({ kind: 'field', name, value });
        if (Buffer.from(value).includes(delimiter)) clean = false;
      } else {
        const base = `f${randomName(5, FILENAME_PIECES)}`;
        const prefix = pick(['', '', 'dir/', 'C:\\Users\\x\\', '../']);
        const filename = prefix + base;
        const type = pick([undefined, 'image/png', 'application/x-thing; v=1']);
        const content = randomContent(boundary, chance(0.9) ? 300 : 5000);
        const param = chance(0.3)
          ? `filename*=UTF-8''${encodeURIComponent(filename)}${chance(0.5) ? `; filename=${quote('fallback.txt')}` : ''}`
          : `filename=${quote(filename)}`;
        add(`${dispositionName}: form-data; name=${quote(name)}; ${param}\r\n`);
        if (type !== undefined) add(`Content-Type: ${type}\r\n`);
        if (chance(0.1)) add('X-Extra: 1\r\n');
        add('\r\n');
        add(content);
        parts.push({
          kind: 'file',
          name,
          filename: base,
          contentType: type ?? 'application/octet-stream',
          content: content.toString('latin1'),
        });
        if (content.includes(delimiter)) clean = false;
      }
      add('\r\n');
    }
    add(`--${boundary}--`);
    const closeEnd = pieces.reduce((sum, piece) => sum + piece.length, 0);
    if (chance(0.5)) add(`${padding()}\r\n`);
    if (chance(0.3)) add(randomContent(boundary, 100));
    if (clean) return { body: Buffer.concat(pieces), contentType, expected: { parts }, closeEnd };
  }
}

function mutate(body: Buffer): Buffer {
  const copy = Buffer.from(body);
  const at = randomInt(random, 0, Math.max(0, body.length - 1));
  switch (randomInt(random, 0, 6)) {
    case 0: // flip a few bytes
      for (let i = randomInt(random, 1, 3); i > 0 && copy.length > 0; i--) copy[randomInt(random, 0, copy.length - 1)] = randomInt(random, 0, 255);
      return copy;
    case 1: // delete a range
      return Buffer.concat([body.subarray(0, at), body.subarray(at + randomInt(random, 1, 20))]);
    case 2: // duplicate a range
      return Buffer.concat([body.subarray(0, at + 20), body.subarray(at)]);
    case 3: // insert something that matters to a multipart parser
      return Buffer.concat([body.subarray(0, at), Buffer.from(pick(['\r\n', '\n', '\r', '--', '\r\n\r\n', ':', ';', '"', '\\', '\r\n--'])), body.subarray(at)]);
    case 4: // CRLF to LF everywhere
      return Buffer.from(body.toString('latin1').replace(/\r\n/g, '\n'), 'latin1');
    case 5: // truncate
      return body.subarray(0, at);
    default: // swap two halves
      return Buffer.concat([body.subarray(at), body.subarray(0, at)]);
  }
}

const failure = (i: number, what: string) => `case ${i} (${what}), seed ${SEED}`;

test(`valid bodies parse identically however they are cut (${VALID_BODIES} bodies)`, async () => {
  let parses = 0;
  for (let i = 0; i < VALID_BODIES; i++) {
    const { body, contentType, expected } = generate();
    const cuttings: [string, Buffer[]][] = [
      ['whole', wholeChunks(body)],
      ['random', randomChunks(body, random)],
      ['random', randomChunks(body, random)],
    ];
    if (i % 10 === 0) cuttings.push(['bytes', byteChunks(body)]);
    for (const [how, chunks] of cuttings) {
      const source = chance(0.2) ? readableOf(chunks) : iterate(chunks);
      const outcome = await withTimeout(collect(source, contentType, LIMITS), CASE_TIMEOUT_MS, failure(i, how));
      assert.equal(outcome, expected, failure(i, how));
      parses++;
    }
    if (i % 5 === 0) {
      // A consumer that never reads file streams: the parser drains them itself.
      const outcome = await withTimeout(
        collect(iterate(randomChunks(body, random)), contentType, LIMITS, { skipFiles: true }),
        CASE_TIMEOUT_MS,
        failure(i, 'unread files'),
      );
      const withoutContent = expected.parts.map((part) => {
        if (part.kind === 'field') return part;
        const { content: _content, ...rest } = part;
        return rest;
      });
      assert.equal(outcome, { parts: withoutContent }, failure(i, 'unread files'));
      parses++;
    }
  }
  console.log(`  ${parses} parses of valid bodies`);
});

test(`a valid body cut before its close delimiter is a 400 (${VALID_BODIES / 5} bodies)`, async () => {
  for (let i = 0; i < VALID_BODIES / 5; i++) {
    const { body, contentType, closeEnd } = generate();
    const truncated = body.subarray(0, randomInt(random, 0, closeEnd - 1));
    const outcome = await withTimeout(collect(iterate(randomChunks(truncated, random)), contentType, LIMITS), CASE_TIMEOUT_MS, failure(i, 'truncated'));
    assert.is(outcome.unexpected, undefined, failure(i, 'truncated'));
    assert.is(outcome.error, 400, failure(i, 'truncated'));
  }
});

test(`mutated bodies parse or reject with an HttpError (${MUTATED_BODIES} bodies)`, async () => {
  const statuses = new Map<string, number>();
  for (let i = 0; i < MUTATED_BODIES; i++) {
    const { body, contentType } = generate();
    let mutated = body;
    for (let n = randomInt(random, 1, 3); n > 0; n--) mutated = mutate(mutated);
    const limits: Partial<MultipartLimits> = chance(0.3)
      ? { files: randomInt(random, 0, 3), fields: randomInt(random, 0, 3), parts: randomInt(random, 0, 4), fileBytes: randomInt(random, 0, 500), fieldBytes: randomInt(random, 0, 50), headerBytes: randomInt(random, 0, 200) }
      : LIMITS;
    let outcome: Outcome;
    try {
      const source = chance(0.2) ? readableOf(randomChunks(mutated, random)) : iterate(randomChunks(mutated, random));
      outcome = await withTimeout(collect(source, contentType, limits, { skipFiles: chance(0.2) }), CASE_TIMEOUT_MS, failure(i, 'mutated'));
    } catch (err) {
      throw new Error(`${failure(i, 'mutated')}: ${String(err)}\nbody: ${JSON.stringify(mutated.toString('latin1'))}`);
    }
    assert.is(outcome.unexpected, undefined, `${failure(i, 'mutated')}: ${outcome.unexpected}`);
    if (outcome.error !== undefined) assert.ok(outcome.error === 400 || outcome.error === 413, failure(i, `status ${outcome.error}`));
    for (const part of outcome.parts) {
      if (part.kind === 'file' && part.error !== undefined) assert.ok(part.error === 400 || part.error === 413, failure(i, 'file error'));
    }
    const key = outcome.error === undefined ? 'parsed' : String(outcome.error);
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  }
  console.log(`  mutated outcomes: ${JSON.stringify(Object.fromEntries(statuses))}`);
});

test('random bytes with a valid Content-Type reject or parse, never worse', async () => {
  for (let i = 0; i < 500; i++) {
    const garbage = Buffer.allocUnsafe(randomInt(random, 0, 300));
    for (let j = 0; j < garbage.length; j++) garbage[j] = randomInt(random, 0, 255);
    const body = chance(0.5) ? Buffer.concat([Buffer.from('--x\r\n'), garbage]) : garbage;
    const outcome = await withTimeout(collect(iterate(randomChunks(body, random)), 'multipart/form-data; boundary=x'), CASE_TIMEOUT_MS, failure(i, 'garbage'));
    assert.is(outcome.unexpected, undefined, failure(i, 'garbage'));
  }
});

test.run();
