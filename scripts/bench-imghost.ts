// Benchmark of the image host against bare node:http references. Run after
// `npx tsc -p test/tsconfig.json`:
//
//   node .test-build/scripts/bench-imghost.js
//
// Every server is a child process (the image host from the same build, and bare
// references started by this file with a --bare-* mode); load comes from this
// process over keep-alive connections to 127.0.0.1 only, each row for a bounded
// time. One table: each figure beside its reference from the same run, the ratio
// and the target.
//
//   original / cached .webp   requests/s vs a server piping the file with createReadStream
//   /SF icon (SVG, PNG)       requests/s vs a server answering the same bytes from memory
//   first WebP conversion     time of the first GET .webp of a 1920×1080 photo-like JPEG
//                             vs sharp converting the file with the same options in a bare
//                             script (median of distinct images)
//   peak RSS                  of the image host child during 50 concurrent 2 MiB uploads
//
// Throughput rows also give each server's CPU time per request (from /proc), which
// stays meaningful when other work on a shared machine makes requests/s noisy.
// BENCH_ROWS=icons (or any of rss,convert,files,icons, comma-separated) runs only
// those groups, to iterate on one; the default runs them all.

import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { Pool } from 'undici';
import { nextRequestId } from '../src/core/request-id.js';

const MiB = 1024 * 1024;
const HOST = '127.0.0.1';
const CONNECTIONS = 64;
const ROW_MS = 5000;
const WARMUP_MS = 500;
/** A row's time is split into this many alternating rounds per side. */
const ROUNDS = 5;
const RSS_SAMPLE_MS = 20;
const UPLOADS = 50;
const UPLOAD_BYTES = 2 * MiB;
const CONVERSION_IMAGES = 3;
const PHOTO_WIDTH = 1920;
const PHOTO_HEIGHT = 1080;
const THROUGHPUT_TARGET = 0.8;
const CONVERSION_TARGET = 1.2;
const RSS_TARGET = 200 * MiB;
/** The preview's options in src/imghost/images/imaging.ts, repeated for the bare script (as is its resize bound). */
const WEBP = { quality: 80, effort: 4 };
const BOUNDARY = '----benchimghost';
const ROW_GROUPS = ['rss', 'convert', 'files', 'icons'] as const;
type RowGroup = (typeof ROW_GROUPS)[number];
const SELECTED = new Set<string>(process.env.BENCH_ROWS ? process.env.BENCH_ROWS.split(',').map((name) => name.trim()) : ROW_GROUPS);
for (const name of SELECTED) {
  if (!(ROW_GROUPS as readonly string[]).includes(name)) throw new Error(`BENCH_ROWS: unknown group "${name}" (use ${ROW_GROUPS.join(',')})`);
}
const runs = (group: RowGroup) => SELECTED.has(group);
/** Linux reports process CPU time in clock ticks of 1/100 s (USER_HZ). */
const MICROSECONDS_PER_TICK = 10_000;

const here = fileURLToPath(new URL('.', import.meta.url));
const self = fileURLToPath(import.meta.url);

// ---------------------------------------------------------------------------
// Bare references (child modes)

/** --bare-file <path> <mime>: createReadStream per request, the naive way done right. */
async function bareFile(path: string, mime: string): Promise<void> {
  const size = (await stat(path)).size;
  listenAndReport((_req, res) => {
    res.writeHead(200, { 'Content-Type': mime, 'Content-Length': size });
    createReadStream(path).pipe(res);
  });
}

/**
 * --bare-memory <path> <headers.json>: the file's bytes from memory, with the header
 * set the image host sent for them (security headers, ETag, caching, CSP) and a
 * request id per answer made as ours are: the same answer, nothing else in the way.
 */
async function bareMemory(path: string, headersPath: string): Promise<void> {
  const bytes = await readFile(path);
  const headers: Record<string, string | number> = { ...JSON.parse(await readFile(headersPath, 'utf8')), 'Content-Length': bytes.length };
  listenAndReport((_req, res) => {
    res.writeHead(200, { ...headers, 'X-Request-Id': nextRequestId() });
    res.end(bytes);
  });
}

function listenAndReport(handler: Parameters<typeof createServer>[1]): void {
  const server = createServer(handler!);
  server.listen(0, HOST, () => process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`));
}

/**
 * --bare-convert: reads file paths, one per line, and answers each with the ms sharp
 * alone takes to convert it with the image host's input and WebP options.
 */
async function bareConvert(): Promise<void> {
  const lines = createInterface({ input: process.stdin });
  let count = 0;
  for await (const file of lines) {
    const started = performance.now();
    await sharp(file, { animated: true, failOn: 'error', limitInputPixels: 100_000_000 })
      .rotate()
      .resize(4096, 4096, { fit: 'inside', withoutEnlargement: true })
      .webp(WEBP)
      .toFile(`${file}.bare-${count++}.webp`);
    process.stdout.write(`${performance.now() - started}\n`);
  }
}

// ---------------------------------------------------------------------------
// Children

interface Child {
  process: ChildProcess;
  url: string;
  stop(): void;
}

function startBare(mode: string, args: string[]): Promise<Child> {
  const child = spawn(process.execPath, [self, mode, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const port = /PORT (\d+)/.exec(out)?.[1];
      if (port) resolve({ process: child, url: `http://${HOST}:${port}`, stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', (code) => reject(new Error(`bare server ${mode} exited with ${code}`)));
  });
}

interface BareConverter extends Child {
  convert(file: string): Promise<number>;
}

function startBareConverter(): BareConverter {
  const child = spawn(process.execPath, [self, '--bare-convert'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const waiting: Array<(ms: number) => void> = [];
  lines.on('line', (line) => waiting.shift()?.(Number(line)));
  return {
    process: child,
    url: '',
    stop: () => child.kill('SIGTERM'),
    convert(file) {
      return new Promise((resolve) => {
        waiting.push(resolve);
        child.stdin!.write(file + '\n');
      });
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startImghost(dataDir: string): Promise<Child> {
  await mkdir(dataDir, { recursive: true });
  const port = await freePort();
  const child = spawn(process.execPath, [join(here, '..', 'src', 'imghost.js')], {
    cwd: dataDir, // no stray .env
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, HOST, IMGHOST_PORT: String(port), LOG_LEVEL: 'error' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://${HOST}:${port}`;
  const until = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`image host exited with ${child.exitCode}`);
    const ok = await fetch(url + '/healthz').then((res) => res.ok, () => false);
    if (ok) break;
    if (Date.now() > until) throw new Error('image host did not start within 15 s');
    await sleep(50);
  }
  return { process: child, url, stop: () => child.kill('SIGTERM') };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------
// Load

interface Target {
  pool: Pool;
  path: string;
}

/** Completed GETs in `ms` over CONNECTIONS keep-alive connections; each body read whole. */
async function load(target: Target, ms: number): Promise<number> {
  let done = 0;
  let failures = 0;
  const end = performance.now() + ms;
  const worker = async () => {
    while (performance.now() < end) {
      const { statusCode, body } = await target.pool.request({ path: target.path, method: 'GET' });
      for await (const _chunk of body) {
        // drain: a response counts once all of it is read
      }
      if (statusCode === 200) done++;
      else failures++;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  if (failures > 0) throw new Error(`${target.path}: ${failures} answers were not 200`);
  return done;
}

/** User + system CPU time of a process so far, in microseconds (Linux /proc). */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * MICROSECONDS_PER_TICK;
}

interface Side {
  origin: string;
  path: string;
  pid: number;
}

interface Throughput {
  ours: number;
  reference: number;
  /** Server CPU time per request, µs. */
  oursCpu: number;
  referenceCpu: number;
}

/**
 * Requests/s of both servers, measured in alternating rounds so that a burst of
 * load from elsewhere on a shared machine hits both sides alike.
 */
async function compareThroughput(ours: Side, bare: Side): Promise<Throughput> {
  const sides = [ours, bare].map((side) => ({
    pool: new Pool(side.origin, { connections: CONNECTIONS, pipelining: 1 }),
    path: side.path,
    pid: side.pid,
  }));
  const totals = [0, 0];
  const cpu = [0, 0];
  try {
    for (const side of sides) await load(side, WARMUP_MS);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, side] of sides.entries()) {
        const before = cpuOf(side.pid);
        totals[i]! += await load(side, ROW_MS / ROUNDS);
        cpu[i]! += cpuOf(side.pid) - before;
      }
    }
  } finally {
    await Promise.all(sides.map((side) => side.pool.close()));
  }
  const seconds = ROW_MS / 1000;
  return {
    ours: totals[0]! / seconds,
    reference: totals[1]! / seconds,
    oursCpu: cpu[0]! / totals[0]!,
    referenceCpu: cpu[1]! / totals[1]!,
  };
}

function multipartBody(bytes: Buffer, filename: string): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="image"; filename="${filename}"\r\n` +
        'Content-Type: image/jpeg\r\n\r\n',
    ),
    bytes,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

async function uploadTo(pool: Pool, bytes: Buffer, filename: string): Promise<{ url: string; webpUrl: string; md5: string }> {
  const { statusCode, body } = await pool.request({
    path: '/api/upload',
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    body: multipartBody(bytes, filename),
  });
  const answer = (await body.json()) as { data: { url: string; webpUrl: string; md5: string } };
  if (statusCode !== 200) throw new Error(`upload answered ${statusCode}: ${JSON.stringify(answer)}`);
  return answer.data;
}

function rssOf(pid: number): Promise<number> {
  return readFile(`/proc/${pid}/status`, 'utf8').then(
    (text) => Number(/VmRSS:\s+(\d+) kB/.exec(text)?.[1] ?? 0) * 1024,
    () => 0,
  );
}

// ---------------------------------------------------------------------------
// Images

/** Photo-like: gradients plus noise, so neither JPEG nor WebP finds it trivial. */
async function photoJpeg(seed: number, width: number, height: number, quality: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  let state = seed * 2654435761 + 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      const noise = (state >> 16) & 63;
      const i = (y * width + x) * 3;
      raw[i] = ((x * 255) / width + noise + seed * 40) & 255;
      raw[i + 1] = ((y * 255) / height + noise) & 255;
      raw[i + 2] = (((x + y) * 128) / (width + height) + noise * 2) & 255;
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality }).toBuffer();
}

/** The same JPEG with a distinct comment segment after SOI: new md5, no re-encode. */
function withComment(jpeg: Buffer, text: string): Buffer {
  const comment = Buffer.from(text);
  const segment = Buffer.alloc(4);
  segment.writeUInt16BE(0xfffe, 0);
  segment.writeUInt16BE(comment.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), segment, comment, jpeg.subarray(2)]);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

// ---------------------------------------------------------------------------
// Orchestration

interface Row {
  what: string;
  ours: string;
  reference: string;
  ratio: string;
  target: string;
  ok: string;
  /** Server CPU µs per request, ours / reference (throughput rows only). */
  cpu: string;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-imghost-'));
  const children: Child[] = [];
  const rows: Row[] = [];
  try {
    const imghost = await startImghost(join(dir, 'data'));
    children.push(imghost);
    const pid = imghost.process.pid!;
    const pool = new Pool(imghost.url, { connections: UPLOADS });

    // Peak RSS during 50 concurrent 2 MiB uploads (first, on a fresh process).
    if (runs('rss')) {
      let big = await photoJpeg(99, 2400, 1500, 92);
      for (let quality = 93; big.length < UPLOAD_BYTES && quality <= 100; quality++) big = await photoJpeg(99, 2400, 1500, quality);
      const uploads = Array.from({ length: UPLOADS }, (_, i) => withComment(big, `bench upload ${i}`));
      const idle = await rssOf(pid);
      let peak = idle;
      const sampler = setInterval(() => void rssOf(pid).then((rss) => (peak = Math.max(peak, rss))), RSS_SAMPLE_MS);
      const uploadStart = performance.now();
      await Promise.all(uploads.map((bytes, i) => uploadTo(pool, bytes, `big-${i}.jpg`)));
      const uploadMs = performance.now() - uploadStart;
      await sleep(100);
      clearInterval(sampler);
      rows.push({
        what: `peak RSS, ${UPLOADS} concurrent ${(big.length / MiB).toFixed(1)} MiB uploads (${Math.round(uploadMs)} ms)`,
        ours: `${(peak / MiB).toFixed(0)} MiB`,
        reference: `idle ${(idle / MiB).toFixed(0)} MiB`,
        ratio: '',
        target: `< ${RSS_TARGET / MiB} MiB`,
        ok: peak < RSS_TARGET ? 'yes' : 'NO',
        cpu: '',
      });
    }

    const firstWebp = async (bytes: Buffer, name: string) => {
      const data = await uploadTo(pool, bytes, name);
      const started = performance.now();
      const { statusCode, body } = await pool.request({ path: data.webpUrl, method: 'GET' });
      await body.arrayBuffer();
      if (statusCode !== 200) throw new Error(`first .webp answered ${statusCode}`);
      return { data, ms: performance.now() - started };
    };
    let sample: { url: string; webpUrl: string; md5: string } | undefined;

    // First conversion of distinct 1920×1080 photos, each followed by sharp alone on
    // the same file in a bare process; both sides warm up on a small image first.
    if (runs('convert')) {
      const converter = startBareConverter();
      children.push(converter);
      const warmup = await photoJpeg(50, 320, 200, 90);
      await firstWebp(warmup, 'warmup.jpg');
      await writeFile(join(dir, 'warmup.jpg'), warmup);
      await converter.convert(join(dir, 'warmup.jpg'));
      const firstMs: number[] = [];
      const bareMs: number[] = [];
      for (let i = 0; i < CONVERSION_IMAGES; i++) {
        const bytes = await photoJpeg(i + 1, PHOTO_WIDTH, PHOTO_HEIGHT, 90);
        const path = join(dir, `photo-${i}.jpg`);
        await writeFile(path, bytes);
        const first = await firstWebp(bytes, `photo-${i}.jpg`);
        sample ??= first.data;
        firstMs.push(first.ms);
        bareMs.push(await converter.convert(path));
      }
      const ours = median(firstMs);
      const reference = median(bareMs);
      rows.push({
        what: `first WebP of a ${PHOTO_WIDTH}×${PHOTO_HEIGHT} JPEG (median of ${CONVERSION_IMAGES})`,
        ours: `${ours.toFixed(0)} ms`,
        reference: `${reference.toFixed(0)} ms`,
        ratio: `${(ours / reference).toFixed(2)}×`,
        target: `≤ ${CONVERSION_TARGET}×`,
        ok: ours / reference <= CONVERSION_TARGET ? 'yes' : 'NO',
        cpu: '',
      });
    }

    // Throughput: the original and the cached preview vs createReadStream.
    if (runs('files')) {
      sample ??= (await firstWebp(await photoJpeg(1, PHOTO_WIDTH, PHOTO_HEIGHT, 90), 'photo-0.jpg')).data;
      const original = join(dir, 'data', 'images', sample.md5.slice(0, 2), `${sample.md5}.jpg`);
      const preview = join(dir, 'data', 'images', sample.md5.slice(0, 2), `${sample.md5}.preview.webp`);
      const fileRows = [
        { what: `GET original (${((await stat(original)).size / 1024).toFixed(0)} KiB JPEG)`, path: sample.url, file: original, mime: 'image/jpeg' },
        { what: `GET cached .webp (${((await stat(preview)).size / 1024).toFixed(0)} KiB)`, path: sample.webpUrl, file: preview, mime: 'image/webp' },
      ];
      for (const row of fileRows) {
        const bare = await startBare('--bare-file', [row.file, row.mime]);
        children.push(bare);
        const measured = await compareThroughput({ origin: imghost.url, path: row.path, pid }, { origin: bare.url, path: '/', pid: bare.process.pid! });
        rows.push(throughputRow(row.what, measured));
        bare.stop();
      }
    }
    await pool.close();

    // Icons (another feature): compared with the same answer (bytes and headers)
    // served from memory.
    if (runs('icons')) {
      const iconRows = [
        { what: 'GET /SF/<icon>?color=red (SVG)', query: '?color=red' },
        { what: 'GET /SF/<icon>?png=true (cached)', query: '?png=true' },
      ];
      const icon = await pickIcon(imghost.url);
      for (const [index, row] of iconRows.entries()) {
        const path = icon === null ? null : `/SF/${encodeURIComponent(icon)}${row.query}`;
        const first = path === null ? null : await fetch(imghost.url + path);
        if (path === null || first === null || first.status !== 200) {
          rows.push({ what: row.what, ours: 'not available (icons routes missing)', reference: '', ratio: '', target: `≥ ${THROUGHPUT_TARGET * 100}%`, ok: '', cpu: '' });
          continue;
        }
        const bytesPath = join(dir, `icon-${index}`);
        await writeFile(bytesPath, Buffer.from(await first.arrayBuffer()));
        const headersPath = join(dir, `icon-${index}.headers.json`);
        await writeFile(headersPath, JSON.stringify(answerHeaders(first.headers)));
        const bare = await startBare('--bare-memory', [bytesPath, headersPath]);
        children.push(bare);
        const measured = await compareThroughput({ origin: imghost.url, path, pid }, { origin: bare.url, path: '/', pid: bare.process.pid! });
        rows.push(throughputRow(`${row.what} [${icon}]`, measured));
        bare.stop();
      }
    }
  } finally {
    for (const child of children) child.stop();
    await rm(dir, { recursive: true, force: true });
  }
  printTable(rows);
}

/** Headers the bare reference repeats: all but those Node writes itself or that differ per request. */
function answerHeaders(headers: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of headers) {
    if (!PER_CONNECTION_HEADERS.has(name)) kept[name] = value;
  }
  return kept;
}
const PER_CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'x-request-id']);

async function pickIcon(base: string): Promise<string | null> {
  try {
    const res = await fetch(base + '/api/svg_files');
    if (res.status !== 200) return null;
    const names = (await res.json()) as unknown;
    if (!Array.isArray(names) || names.length === 0) return null;
    const preferred = names.find((name) => name === 'home.svg') ?? names[0];
    return String(preferred).replace(/\.svg$/, '');
  } catch {
    return null;
  }
}

function throughputRow(what: string, measured: Throughput): Row {
  const ratio = measured.ours / measured.reference;
  return {
    what,
    ours: `${measured.ours.toFixed(0)} req/s`,
    reference: `${measured.reference.toFixed(0)} req/s`,
    ratio: `${(ratio * 100).toFixed(0)}%`,
    target: `≥ ${THROUGHPUT_TARGET * 100}%`,
    ok: ratio >= THROUGHPUT_TARGET ? 'yes' : 'NO',
    cpu: `${measured.oursCpu.toFixed(1)} / ${measured.referenceCpu.toFixed(1)}`,
  };
}

function printTable(rows: Row[]): void {
  const header: Row = { what: 'measure', ours: 'image host', reference: 'bare reference', ratio: 'ratio', target: 'target', ok: 'met', cpu: 'server CPU µs/req: ours / ref' };
  const keys = Object.keys(header) as (keyof Row)[];
  const widths = keys.map((key) => Math.max(...[header, ...rows].map((row) => row[key].length)));
  const line = (row: Row) => '| ' + keys.map((key, i) => row[key].padEnd(widths[i]!)).join(' | ') + ' |';
  console.log(line(header));
  console.log('|' + widths.map((width) => '-'.repeat(width + 2)).join('|') + '|');
  for (const row of rows) console.log(line(row));
  console.log(
    `(${CONNECTIONS} keep-alive connections to 127.0.0.1; throughput: ${ROW_MS / 1000} s per side in ${ROUNDS} alternating rounds after ${WARMUP_MS} ms warm-up)`,
  );
}

// ---------------------------------------------------------------------------

const [mode, ...args] = process.argv.slice(2);
if (mode === '--bare-file') await bareFile(args[0]!, args[1]!);
else if (mode === '--bare-memory') await bareMemory(args[0]!, args[1]!);
else if (mode === '--bare-convert') await bareConvert();
else await main();
