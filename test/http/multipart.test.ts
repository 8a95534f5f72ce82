import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../src/http/errors.js';
import {
  DEFAULT_MULTIPART_LIMITS,
  boundaryFrom,
  parseMultipart,
  type FilePart,
  type MultipartLimits,
  type Part,
} from '../../src/http/multipart/index.js';
import {
  byteChunks,
  collect,
  iterate,
  prng,
  randomChunks,
  readableOf,
  wholeChunks,
  withTimeout,
  type Outcome,
} from '../fixtures/multipart/harness.js';

const SEED = 0x5eed_7578;
console.log(`multipart.test seed: ${SEED}`);
const random = prng(SEED);

const B = 'AaB03x';
const disposition = (name: string, extra = '') => `Content-Disposition: form-data; name="${name}"${extra}`;
/** Joins pieces with CRLF, as every line of a multipart body ends. */
const lines = (...pieces: (string | Buffer)[]) => {
  const parts: Buffer[] = [];
  pieces.forEach((piece, i) => {
    if (i > 0) parts.push(Buffer.from('\r\n'));
    parts.push(typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece);
  });
  return Buffer.concat(parts);
};
const fieldPart = (name: string, value: string, boundary = B) => [`--${boundary}`, disposition(name), '', value];
const filePart = (name: string, filename: string, content: string | Buffer, type = 'application/octet-stream', boundary = B) => [
  `--${boundary}`,
  disposition(name, `; filename="${filename}"`),
  `Content-Type: ${type}`,
  '',
  content,
];

interface Case {
  what: string;
  source: Buffer;
  boundary: string;
  /** Overrides the Content-Type built from `boundary`. */
  contentType?: string;
  limits?: Partial<MultipartLimits>;
  expected: Outcome;
}

const binary = Buffer.concat([
  Buffer.from(`\r\n--${B.slice(0, 3)}`), // a delimiter prefix
  Buffer.from([0, 1, 2, 0x0d, 0x0a, 0x2d, 0x2d, 0xff]),
  Buffer.from(`\r\n--${B.slice(0, -1)}`), // all but the last boundary byte
  Buffer.from(`\r\r\n-\r\n--`),
  Buffer.from(`--${B}`), // the boundary without its CRLF is content
  Buffer.from('\r\n-'), // ends with a prefix of the delimiter
]);

const cases: Case[] = [
  {
    what: 'simple field',
    source: lines(...fieldPart('a', 'hello'), `--${B}--`),
    boundary: B,
    expected: { parts: [{ kind: 'field', name: 'a', value: 'hello' }] },
  },
  {
    what: 'file',
    source: lines(...filePart('upload', 'cat.png', 'PNGDATA', 'image/png'), `--${B}--`, ''),
    boundary: B,
    expected: { parts: [{ kind: 'file', name: 'upload', filename: 'cat.png', contentType: 'image/png', content: 'PNGDATA' }] },
  },
  {
    what: 'several parts, UTF-8 field value, default content types',
    source: lines(
      ...fieldPart('title', 'Grüße ✓'),
      `--${B}`,
      disposition('doc', '; filename="notes.txt"'),
      '',
      'line 1\r\nline 2',
      ...fieldPart('tags', 'a,b'),
      `--${B}--`,
    ),
    boundary: B,
    limits: { files: 2 },
    expected: {
      parts: [
        { kind: 'field', name: 'title', value: 'Grüße ✓' },
        { kind: 'file', name: 'doc', filename: 'notes.txt', contentType: 'application/octet-stream', content: 'line 1\r\nline 2' },
        { kind: 'field', name: 'tags', value: 'a,b' },
      ],
    },
  },
  {
    what: 'quoted boundary with characters a token cannot hold',
    source: lines(...fieldPart('a', 'x', 'b:c=d/e f'), '--b:c=d/e f--'),
    boundary: 'b:c=d/e f',
    contentType: 'multipart/form-data; boundary="b:c=d/e f"',
    expected: { parts: [{ kind: 'field', name: 'a', value: 'x' }] },
  },
  {
    what: 'unquoted boundary, other parameters, odd case and spacing',
    source: lines(...fieldPart('a', 'x', '----WebKitFormBoundary7MA4YWxk'), '------WebKitFormBoundary7MA4YWxk--'),
    boundary: '----WebKitFormBoundary7MA4YWxk',
    contentType: 'Multipart/Form-Data ;charset=utf-8;  BOUNDARY=----WebKitFormBoundary7MA4YWxk',
    expected: { parts: [{ kind: 'field', name: 'a', value: 'x' }] },
  },
  {
    what: 'filename* (RFC 5987) wins over filename',
    source: lines(
      `--${B}`,
      `Content-Disposition: form-data; name="f"; filename="EUR rates.txt"; filename*=UTF-8''%e2%82%ac%20rates.txt`,
      '',
      'x',
      `--${B}`,
      `Content-Disposition: form-data; name="g"; filename*=iso-8859-1'en'%A3%20rates.txt`,
      '',
      'y',
      `--${B}--`,
    ),
    boundary: B,
    limits: { files: 2 },
    expected: {
      parts: [
        { kind: 'file', name: 'f', filename: '€ rates.txt', contentType: 'application/octet-stream', content: 'x' },
        { kind: 'file', name: 'g', filename: '£ rates.txt', contentType: 'application/octet-stream', content: 'y' },
      ],
    },
  },
  {
    what: 'filename with a path keeps the last segment; quoted-pair escapes',
    source: lines(
      `--${B}`,
      disposition('a', '; filename="../../etc/passwd"'),
      '',
      '1',
      `--${B}`,
      disposition('b', '; filename="C:\\\\Users\\\\me\\\\a \\"quoted\\".txt"'),
      '',
      '2',
      `--${B}`,
      disposition('c', `; filename*=UTF-8''..%2F..%2Fx.png`),
      '',
      '3',
      `--${B}`,
      disposition('d', '; filename=".."'),
      '',
      '4',
      `--${B}--`,
    ),
    boundary: B,
    limits: { files: 4 },
    expected: {
      parts: [
        { kind: 'file', name: 'a', filename: 'passwd', contentType: 'application/octet-stream', content: '1' },
        { kind: 'file', name: 'b', filename: 'a "quoted".txt', contentType: 'application/octet-stream', content: '2' },
        { kind: 'file', name: 'c', filename: 'x.png', contentType: 'application/octet-stream', content: '3' },
        { kind: 'file', name: 'd', filename: '', contentType: 'application/octet-stream', content: '4' },
      ],
    },
  },
  {
    what: 'unquoted parameters and header names in any case',
    source: lines(`--${B}`, 'content-disposition: FORM-DATA; Name=plain; FILENAME=a.bin', 'CONTENT-TYPE: text/csv', '', 'q', `--${B}--`),
    boundary: B,
    expected: { parts: [{ kind: 'file', name: 'plain', filename: 'a.bin', contentType: 'text/csv', content: 'q' }] },
  },
  {
    what: 'preamble and epilogue are ignored',
    source: lines(
      'This is the preamble. It may mention --AaB03 or even end a line with --AaB03',
      ...fieldPart('a', 'v'),
      `--${B}--`,
      'epilogue, even with a boundary in it:',
      `--${B}`,
      'garbage',
    ),
    boundary: B,
    expected: { parts: [{ kind: 'field', name: 'a', value: 'v' }] },
  },
  {
    what: 'preamble of 16 KiB (the most we read) is fine',
    source: lines('p'.repeat(16 * 1024), ...fieldPart('a', 'v'), `--${B}--`),
    boundary: B,
    expected: { parts: [{ kind: 'field', name: 'a', value: 'v' }] },
  },
  {
    what: 'preamble over 16 KiB means the boundary is not used: 400',
    source: lines('p'.repeat(16 * 1024 + 1), ...fieldPart('a', 'v'), `--${B}--`),
    boundary: B,
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'empty file and empty field',
    source: lines(...filePart('f', '', ''), ...fieldPart('e', ''), `--${B}--`),
    boundary: B,
    expected: {
      parts: [
        { kind: 'file', name: 'f', filename: '', contentType: 'application/octet-stream', content: '' },
        { kind: 'field', name: 'e', value: '' },
      ],
    },
  },
  {
    what: 'no parts at all',
    source: Buffer.from(`--${B}--\r\n`),
    boundary: B,
    expected: { parts: [] },
  },
  {
    what: 'transport padding after boundaries, folded header',
    source: lines(`--${B} \t`, 'Content-Disposition: form-data;', '\tname="folded"', '', 'v', `--${B}--  `),
    boundary: B,
    expected: { parts: [{ kind: 'field', name: 'folded', value: 'v' }] },
  },
  {
    what: 'binary content with partial boundary-like sequences',
    source: lines(...filePart('bin', 'b.dat', binary), ...fieldPart('after', binary.toString('latin1')), `--${B}--`),
    boundary: B,
    expected: {
      parts: [
        { kind: 'file', name: 'bin', filename: 'b.dat', contentType: 'application/octet-stream', content: binary.toString('latin1') },
        { kind: 'field', name: 'after', value: binary.toString('latin1') },
      ],
    },
  },
  {
    what: 'regression: many near-delimiters in one chunk (the search falls back to the whole delimiter)',
    source: lines(...filePart('f', 'n.txt', `\r\n--${B.slice(0, 5)}`.repeat(20) + '\r\n--'), `--${B}--`),
    boundary: B,
    expected: {
      parts: [
        {
          kind: 'file',
          name: 'f',
          filename: 'n.txt',
          contentType: 'application/octet-stream',
          content: `\r\n--${B.slice(0, 5)}`.repeat(20) + '\r\n--',
        },
      ],
    },
  },
  {
    what: 'limits are inclusive: file, field and header exactly at their limit',
    source: lines(`--${B}`, disposition('a', '; filename="x"'), '', '12345', ...fieldPart('b', '123'), `--${B}--`),
    boundary: B,
    limits: { fileBytes: 5, fieldBytes: 3, headerBytes: `${disposition('a', '; filename="x"')}\r\n\r\n`.length },
    expected: {
      parts: [
        { kind: 'file', name: 'a', filename: 'x', contentType: 'application/octet-stream', content: '12345' },
        { kind: 'field', name: 'b', value: '123' },
      ],
    },
  },

  // Refusals.
  {
    what: 'LF-only body is refused (CRLF only, see scanner.ts)',
    source: Buffer.from(`--${B}\n${disposition('a')}\n\nv\n--${B}--\n`),
    boundary: B,
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'LF-only body with a preamble is refused',
    source: Buffer.from(`preamble\n--${B}\n${disposition('a')}\n\nv\n--${B}--\n`),
    boundary: B,
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'bare LF inside a header block is refused',
    source: lines(`--${B}`, `X-Other: 1\n${disposition('a')}`, '', 'v', `--${B}--`),
    boundary: B,
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'missing closing boundary after a field',
    source: lines(...fieldPart('a', 'v')),
    boundary: B,
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'missing closing boundary in a file: the stream errors too',
    source: lines(...fieldPart('a', 'v'), ...filePart('f', 'f.bin', 'partial content')),
    boundary: B,
    expected: {
      parts: [
        { kind: 'field', name: 'a', value: 'v' },
        { kind: 'file', name: 'f', filename: 'f.bin', contentType: 'application/octet-stream', error: 400 },
      ],
      error: 400,
      code: 'BAD_REQUEST',
    },
  },
  {
    what: 'body ends right after a boundary line',
    source: Buffer.from(`--${B}\r\n`),
    boundary: B,
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'empty body',
    source: Buffer.alloc(0),
    boundary: B,
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'boundary followed by other characters is malformed (the part before it is complete)',
    source: lines(...fieldPart('a', `x\r\n--${B}X`), `--${B}--`),
    boundary: B,
    expected: { parts: [{ kind: 'field', name: 'a', value: 'x' }], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'too many parts',
    source: lines(...fieldPart('a', '1'), ...fieldPart('b', '2'), ...fieldPart('c', '3'), `--${B}--`),
    boundary: B,
    limits: { parts: 2 },
    expected: {
      parts: [
        { kind: 'field', name: 'a', value: '1' },
        { kind: 'field', name: 'b', value: '2' },
      ],
      error: 413,
      code: 'PAYLOAD_TOO_LARGE',
    },
  },
  {
    what: 'too many fields',
    source: lines(...fieldPart('a', '1'), ...fieldPart('b', '2'), `--${B}--`),
    boundary: B,
    limits: { fields: 1 },
    expected: { parts: [{ kind: 'field', name: 'a', value: '1' }], error: 413, code: 'PAYLOAD_TOO_LARGE' },
  },
  {
    what: 'too many files',
    source: lines(...filePart('a', 'a', '1'), ...filePart('b', 'b', '2'), `--${B}--`),
    boundary: B,
    expected: {
      parts: [{ kind: 'file', name: 'a', filename: 'a', contentType: 'application/octet-stream', content: '1' }],
      error: 413,
      code: 'PAYLOAD_TOO_LARGE',
    },
  },
  {
    what: 'file over its limit: the stream errors and the generator rejects',
    source: lines(...filePart('f', 'big.bin', 'x'.repeat(100)), `--${B}--`),
    boundary: B,
    limits: { fileBytes: 99 },
    expected: {
      parts: [{ kind: 'file', name: 'f', filename: 'big.bin', contentType: 'application/octet-stream', error: 413 }],
      error: 413,
      code: 'PAYLOAD_TOO_LARGE',
    },
  },
  {
    what: 'field over its limit',
    source: lines(...fieldPart('a', '1234'), `--${B}--`),
    boundary: B,
    limits: { fieldBytes: 3 },
    expected: { parts: [], error: 413, code: 'PAYLOAD_TOO_LARGE' },
  },
  {
    what: 'header block over its limit',
    source: lines(`--${B}`, disposition('a'), `X-Padding: ${'p'.repeat(200)}`, '', 'v', `--${B}--`),
    boundary: B,
    limits: { headerBytes: 128 },
    expected: { parts: [], error: 413, code: 'PAYLOAD_TOO_LARGE' },
  },
  {
    what: 'header block that never ends is bounded by the limit',
    source: lines(`--${B}`, disposition('a'), 'X: '.padEnd(10_000, 'x')),
    boundary: B,
    expected: { parts: [], error: 413, code: 'PAYLOAD_TOO_LARGE' },
  },
  {
    what: 'boundary too long (71 characters)',
    source: lines(...fieldPart('a', 'v', 'b'.repeat(71)), `--${'b'.repeat(71)}--`),
    boundary: 'b'.repeat(71),
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'boundary with a forbidden character',
    source: lines(...fieldPart('a', 'v', 'a;b'), '--a;b--'),
    boundary: 'a;b',
    contentType: 'multipart/form-data; boundary="a;b"',
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'boundary ending in a space',
    source: lines(...fieldPart('a', 'v', 'ab '), '--ab --'),
    boundary: 'ab ',
    contentType: 'multipart/form-data; boundary="ab "',
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'missing boundary parameter',
    source: lines(...fieldPart('a', 'v'), `--${B}--`),
    boundary: B,
    contentType: 'multipart/form-data',
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'empty quoted boundary',
    source: lines(...fieldPart('a', 'v'), `--${B}--`),
    boundary: B,
    contentType: 'multipart/form-data; boundary=""',
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'not multipart/form-data',
    source: lines(...fieldPart('a', 'v'), `--${B}--`),
    boundary: B,
    contentType: `multipart/mixed; boundary=${B}`,
    expected: { parts: [], error: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  },
  {
    what: 'part without a name',
    source: lines(`--${B}`, 'Content-Disposition: form-data; filename="a.txt"', '', 'v', `--${B}--`),
    boundary: B,
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'part without Content-Disposition',
    source: lines(`--${B}`, 'Content-Type: text/plain', '', 'v', `--${B}--`),
    boundary: B,
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'part with no headers at all',
    source: lines(`--${B}`, '', 'v', `--${B}--`),
    boundary: B,
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'disposition other than form-data',
    source: lines(`--${B}`, 'Content-Disposition: attachment; name="a"', '', 'v', `--${B}--`),
    boundary: B,
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'repeated parameter is refused rather than guessed',
    source: lines(`--${B}`, 'Content-Disposition: form-data; name="a"; filename="x.png"; filename="x.php"', '', 'v', `--${B}--`),
    boundary: B,
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'two Content-Disposition headers',
    source: lines(`--${B}`, disposition('a'), disposition('b'), '', 'v', `--${B}--`),
    boundary: B,
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'unterminated quoted string',
    source: lines(`--${B}`, 'Content-Disposition: form-data; name="a', '', 'v', `--${B}--`),
    boundary: B,
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'filename* with a bad percent escape',
    source: lines(`--${B}`, `Content-Disposition: form-data; name="a"; filename*=UTF-8''%zz.txt`, '', 'v', `--${B}--`),
    boundary: B,
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'filename* with an unsupported charset',
    source: lines(`--${B}`, `Content-Disposition: form-data; name="a"; filename*=koi8-r''a.txt`, '', 'v', `--${B}--`),
    boundary: B,
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
  {
    what: 'header line without a colon',
    source: lines(`--${B}`, disposition('a'), 'nonsense', '', 'v', `--${B}--`),
    boundary: B,
    expected: { parts: [], error: 400, code: 'BAD_REQUEST' },
  },
];

const feeds: { how: string; chunks: (body: Buffer) => Buffer[]; readable?: boolean }[] = [
  { how: 'whole', chunks: wholeChunks },
  { how: 'byte by byte', chunks: byteChunks },
  { how: 'random chunks', chunks: (body) => randomChunks(body, random) },
  { how: 'random chunks', chunks: (body) => randomChunks(body, random) },
  { how: 'random chunks', chunks: (body) => randomChunks(body, random) },
  { how: 'random chunks via a Readable', chunks: (body) => randomChunks(body, random), readable: true },
];

for (const c of cases) {
  test(`table: ${c.what}`, async () => {
    const contentType = c.contentType ?? `multipart/form-data; boundary=${c.boundary}`;
    for (const feed of feeds) {
      const chunks = feed.chunks(c.source);
      const source = feed.readable ? readableOf(chunks) : iterate(chunks);
      const outcome = await withTimeout(collect(source, contentType, c.limits), 5000, c.what);
      assert.equal(outcome, c.expected, `${c.what} (${feed.how})`);
    }
  });
}

test('regression: every split point of a two-part body parses identically', async () => {
  const body = lines(...filePart('f', 'a.bin', binary), ...fieldPart('g', 'value'), `--${B}--`);
  const contentType = `multipart/form-data; boundary=${B}`;
  const expected = await collect(iterate([body]), contentType);
  for (let a = 0; a <= body.length; a++) {
    const outcome = await collect(iterate([body.subarray(0, a), body.subarray(a)]), contentType);
    assert.equal(outcome, expected, `split at ${a}`);
  }
});

test('boundaryFrom: accepts quoted and unquoted, refuses the rest with the right status', () => {
  assert.is(boundaryFrom(`multipart/form-data; boundary=${B}`), B);
  assert.is(boundaryFrom('multipart/form-data; boundary="a b"'), 'a b');
  assert.is(boundaryFrom('multipart/form-data;boundary="a\\b"'), 'ab'); // quoted-pair
  assert.is(boundaryFrom(`multipart/form-data; boundary=${'z'.repeat(70)}`), 'z'.repeat(70));
  const status = (value: string | undefined) => {
    try {
      boundaryFrom(value);
      return 0;
    } catch (err) {
      assert.instance(err, HttpError);
      return (err as HttpError).status;
    }
  };
  assert.is(status(undefined), 400);
  assert.is(status(''), 400);
  assert.is(status('application/json'), 415);
  assert.is(status('multipart/form-data; boundary'), 400);
  assert.is(status('multipart/form-data; boundary="unterminated'), 400);
  assert.is(status(`multipart/form-data; boundary=${B}; boundary=other`), 400);
  assert.is(status(`multipart/form-data; boundary=${'z'.repeat(71)}`), 400);
});

test('limits: defaults are explicit and bad values are a programming error', async () => {
  assert.equal({ ...DEFAULT_MULTIPART_LIMITS }, {
    fileBytes: 8 * 1024 * 1024,
    files: 1,
    fields: 20,
    fieldBytes: 64 * 1024,
    headerBytes: 8 * 1024,
    parts: 25,
  });
  const parts = parseMultipart(iterate([]), `multipart/form-data; boundary=${B}`, { files: -1 });
  try {
    await parts.next();
    assert.unreachable('should reject');
  } catch (err) {
    assert.instance(err, RangeError);
  }
});

test('parseMultipart never throws synchronously, even on a bad Content-Type', async () => {
  const parts = parseMultipart(iterate([]), 'text/plain');
  try {
    await parts.next();
    assert.unreachable('should reject');
  } catch (err) {
    assert.instance(err, HttpError);
    assert.is((err as HttpError).status, 415);
  }
});

// Real clients.

test('undici FormData serialized by Request parses back to what went in', async () => {
  const bytes = randomBytes(300_000);
  const form = new FormData();
  form.append('title', 'Grüße, "quoted" & more');
  form.append('photo', new File([bytes], 'holiday photo.png', { type: 'image/png' }));
  form.append('notes', new Blob([Buffer.from('plain\r\n--not a boundary\r\n')]), 'notes.txt');
  form.append('empty', '');
  const request = new Request('http://x', { method: 'POST', body: form });
  const contentType = request.headers.get('content-type') ?? undefined;
  const body = Buffer.from(await request.arrayBuffer());
  for (const chunks of [wholeChunks(body), randomChunks(body, random)]) {
    const outcome = await collect(iterate(chunks), contentType, { files: 2 });
    assert.equal(outcome, {
      parts: [
        { kind: 'field', name: 'title', value: 'Grüße, "quoted" & more' },
        { kind: 'file', name: 'photo', filename: 'holiday photo.png', contentType: 'image/png', content: bytes.toString('latin1') },
        {
          kind: 'file',
          name: 'notes',
          filename: 'notes.txt',
          contentType: 'application/octet-stream',
          content: 'plain\r\n--not a boundary\r\n',
        },
        { kind: 'field', name: 'empty', value: '' },
      ],
    });
  }
});

const execFileAsync = promisify(execFile);

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

test('curl -F bodies over a real server parse byte for byte', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'multipart-curl-'));
  const bytes = randomBytes(1024 * 1024 + 17);
  const file = join(dir, 'upload.bin');
  await writeFile(file, bytes);
  let seen: { parts: { name: string; filename?: string; contentType?: string; value?: string; content?: Buffer }[] } | undefined;
  const { server, url } = await listen(async (req, res) => {
    const parts: NonNullable<typeof seen>['parts'] = [];
    try {
      for await (const part of parseMultipart(req, req.headers['content-type'])) {
        if (part.kind === 'field') parts.push({ name: part.name, value: part.value });
        else {
          const chunks: Buffer[] = [];
          for await (const chunk of part.stream) chunks.push(chunk as Buffer);
          parts.push({ name: part.name, filename: part.filename, contentType: part.contentType, content: Buffer.concat(chunks) });
        }
      }
      seen = { parts };
      res.end('ok');
    } catch (err) {
      res.statusCode = err instanceof HttpError ? err.status : 500;
      res.end(String(err));
    }
  });
  try {
    const { stdout } = await execFileAsync('curl', ['-sS', '-F', 'field=value', '-F', `file=@${file};filename=a b.png`, url]);
    assert.is(stdout, 'ok');
    assert.ok(seen);
    assert.is(seen.parts.length, 2);
    assert.equal(seen.parts[0], { name: 'field', value: 'value' });
    const uploaded = seen.parts[1]!;
    assert.is(uploaded.name, 'file');
    assert.is(uploaded.filename, 'a b.png');
    assert.is(uploaded.contentType, 'image/png');
    assert.ok(uploaded.content!.equals(bytes), 'file content differs');
  } finally {
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

// Streaming behaviour.

test('backpressure: a slow reader keeps the parser from pulling the whole source', async () => {
  const fileSize = 20 * 1024 * 1024;
  const chunkSize = 64 * 1024;
  const head = Buffer.from(lines(`--${B}`, disposition('f', '; filename="big.bin"'), '', ''));
  const tail = Buffer.from(`\r\n--${B}--\r\n`);
  const block = Buffer.alloc(chunkSize, 0x61);
  let pulled = 0;
  async function* source(): AsyncGenerator<Buffer> {
    yield head;
    for (let sent = 0; sent < fileSize; sent += chunkSize) {
      pulled += chunkSize;
      yield block;
    }
    yield tail;
  }
  let consumed = 0;
  let worst = 0;
  let reads = 0;
  for await (const part of parseMultipart(source(), `multipart/form-data; boundary=${B}`, { fileBytes: fileSize })) {
    assert.is(part.kind, 'file');
    for await (const chunk of (part as FilePart).stream) {
      consumed += (chunk as Buffer).length;
      worst = Math.max(worst, pulled - consumed);
      if (++reads % 16 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }
  assert.is(consumed, fileSize);
  console.log(`  backpressure: at most ${(worst / 1024).toFixed(0)} KiB pulled ahead of the reader`);
  assert.ok(worst < 1024 * 1024, `pulled ${worst} bytes ahead of the reader`);
});

test('backpressure over a Readable: the source stays paused while the file is unread', async () => {
  const source = new PassThrough({ highWaterMark: 16 * 1024 });
  const head = lines(`--${B}`, disposition('f', '; filename="x"'), '', '');
  let written = 0;
  let writerBlocked = false;
  const writer = (async () => {
    source.write(head);
    for (let i = 0; i < 400 && !source.destroyed; i++) {
      written += 16 * 1024;
      if (!source.write(Buffer.alloc(16 * 1024, 0x62))) {
        writerBlocked = true;
        await new Promise((resolve) => source.once('drain', resolve));
      }
    }
    source.end(`\r\n--${B}--\r\n`);
  })();
  const parts = parseMultipart(source, `multipart/form-data; boundary=${B}`);
  const first = await parts.next();
  const part = first.value as FilePart;
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(writerBlocked, 'the writer should be held back');
  assert.ok(written < 512 * 1024, `the writer got ${written} bytes in without a reader`);
  let consumed = 0;
  for await (const chunk of part.stream) consumed += (chunk as Buffer).length;
  assert.is(consumed, 400 * 16 * 1024);
  assert.ok((await parts.next()).done);
  await writer;
});

test('early end: the in-progress file stream errors and the generator rejects with 400', async () => {
  const body = lines(...filePart('f', 'f.bin', 'x'.repeat(10_000)));
  const parts = parseMultipart(iterate(randomChunks(body, random)), `multipart/form-data; boundary=${B}`);
  const first = await parts.next();
  const part = first.value as FilePart;
  const streamError = new Promise<unknown>((resolve) => part.stream.on('error', resolve));
  part.stream.resume();
  const err = await streamError;
  assert.instance(err, HttpError);
  assert.is((err as HttpError).status, 400);
  assert.is((err as HttpError).message, 'Unexpected end of form');
  try {
    await parts.next();
    assert.unreachable('should reject');
  } catch (rejected) {
    assert.is(rejected, err, 'the same error reaches both');
  }
});

test('regression: a file error with no error listener does not crash; the generator rejects', async () => {
  const body = lines(...filePart('f', 'f.bin', 'x'.repeat(100_000)), `--${B}--`);
  const crashes: unknown[] = [];
  const onUncaught = (err: unknown) => crashes.push(err);
  process.on('uncaughtException', onUncaught);
  try {
    for (const read of [false, true]) {
      const parts = parseMultipart(iterate(randomChunks(body, random)), `multipart/form-data; boundary=${B}`, { fileBytes: 1000 });
      const part = (await parts.next()).value as FilePart;
      if (read) part.stream.on('data', () => {}); // reads, but listens for no error
      try {
        await parts.next();
        assert.unreachable('should reject');
      } catch (err) {
        assert.instance(err, HttpError);
        assert.is((err as HttpError).status, 413);
      }
      assert.ok(part.stream.destroyed);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(crashes, []);
  } finally {
    process.off('uncaughtException', onUncaught);
  }
});

const threeParts = () =>
  lines(...filePart('f', 'f.bin', 'y'.repeat(300_000)), ...fieldPart('a', '1'), ...fieldPart('b', '2'), `--${B}--`);

test('an unread file stream is drained when the next part is requested', async () => {
  const outcome = await collect(iterate(randomChunks(threeParts(), random)), `multipart/form-data; boundary=${B}`, undefined, {
    skipFiles: true,
  });
  assert.equal(outcome.parts.map((p) => p.name), ['f', 'a', 'b']);
  assert.is(outcome.error, undefined);
});

test('a file stream piped but not awaited still gets all its content', async () => {
  const names: string[] = [];
  let received = 0;
  let finished!: Promise<void>;
  for await (const part of parseMultipart(iterate(randomChunks(threeParts(), random)), `multipart/form-data; boundary=${B}`)) {
    names.push(part.name);
    if (part.kind === 'file') {
      const sink = new PassThrough();
      sink.on('data', (chunk: Buffer) => (received += chunk.length));
      finished = new Promise((resolve) => sink.on('end', resolve));
      part.stream.pipe(sink);
    }
  }
  await finished;
  assert.equal(names, ['f', 'a', 'b']);
  assert.is(received, 300_000);
});

test('a file stream destroyed by the consumer is skipped, later parts still parse', async () => {
  const values: string[] = [];
  for await (const part of parseMultipart(iterate(randomChunks(threeParts(), random)), `multipart/form-data; boundary=${B}`)) {
    if (part.kind === 'file') part.stream.destroy();
    else values.push(part.value);
  }
  assert.equal(values, ['1', '2']);
});

test('break: stops reading, leaves a Readable source paused and not destroyed', async () => {
  const source = new PassThrough();
  source.write(threeParts()); // and no end(): the client is still sending
  let part: Part | undefined;
  for await (const p of parseMultipart(source, `multipart/form-data; boundary=${B}`)) {
    part = p;
    break;
  }
  assert.is(part?.kind, 'file');
  assert.ok((part as FilePart).stream.destroyed, 'the half-read file must not look complete');
  assert.ok(source.isPaused());
  assert.not.ok(source.destroyed);
  assert.is(source.listenerCount('data'), 0);
  source.resume(); // what a caller does to discard the rest
  source.end();
  await new Promise((resolve) => source.on('end', resolve));
});

test('break: an async generator source is returned', async () => {
  let finalized = false;
  async function* source(): AsyncGenerator<Buffer> {
    try {
      yield lines(...fieldPart('a', '1'), '');
      yield lines(...fieldPart('b', '2'), `--${B}--`);
    } finally {
      finalized = true;
    }
  }
  for await (const part of parseMultipart(source(), `multipart/form-data; boundary=${B}`)) {
    assert.is(part.name, 'a');
    break;
  }
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(finalized);
});

test('a source that fails becomes a 400 HttpError; an HttpError from the source passes through', async () => {
  async function* failing(err: Error): AsyncGenerator<Buffer> {
    yield lines(...fieldPart('a', '1'), `--${B}`);
    throw err;
  }
  const contentType = `multipart/form-data; boundary=${B}`;
  const plain = await collect(failing(new Error('ECONNRESET')), contentType);
  assert.equal(plain, { parts: [{ kind: 'field', name: 'a', value: '1' }], error: 400, code: 'BAD_REQUEST' });
  const limited = await collect(failing(new HttpError(413, 'PAYLOAD_TOO_LARGE', 'body')), contentType);
  assert.is(limited.error, 413);

  const stream = new PassThrough();
  stream.write(lines(...fieldPart('a', '1'), ''));
  setTimeout(() => stream.destroy(new Error('aborted')), 5);
  const aborted = await collect(stream, contentType);
  assert.is(aborted.error, 400);
});

test('a field whose bytes are not UTF-8 is 400 VALIDATION_FAILED, never stored as U+FFFD', async () => {
  const contentType = `multipart/form-data; boundary=${B}`;
  for (const bytes of [[0xff, 0xfe, 0x31], [0xed, 0xa0, 0x80], [0xc3]]) {
    const body = Buffer.concat([Buffer.from(lines(`--${B}`, disposition('version'), '', '')), Buffer.from(bytes), Buffer.from(lines('', `--${B}--`, ''))]);
    const outcome = await collect(readableOf(wholeChunks(body)), contentType);
    assert.equal([outcome.error, outcome.code], [400, 'VALIDATION_FAILED'], `bytes ${bytes}`);
  }
  const chinese = await collect(readableOf(wholeChunks(Buffer.from(lines(...fieldPart('changelog', '修复了小地图'), `--${B}--`, '')))), contentType);
  assert.equal(chinese.parts, [{ kind: 'field', name: 'changelog', value: '修复了小地图' }]);
});

test.run();
