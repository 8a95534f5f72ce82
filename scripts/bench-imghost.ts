// Benchmark of the built image host (`node dist/imghost.js`, its request log
// written to a file) against bare references. Run after
// `npx tsc -p test/tsconfig.json`:
//
//   node .test-build/scripts/bench-imghost.js
//
// Throughput rows go through scripts/bench/harness.ts (server pinned to core 0,
// autocannon with 50 connections pinned to core 1, median of 3 runs of 8 s, against
// the plain and the bare node:http references answering the same headers and body;
// target: server CPU per request at most the plain one's / 0.8); the others are
// measured from this process:
//
//   /SF icon (SVG, PNG)       vs the same answer served from memory
//   original / cached .webp   vs a server piping the file with createReadStream
//   package download          a 1 MiB plugin ZIP from /pkg/, likewise (target 0.8)
//   first WebP conversion     time of the first GET .webp of a 1920×1080 photo-like JPEG
//                             vs sharp converting the file with the same options in a bare
//                             script (median of distinct images)
//   peak RSS                  of the image host during 50 concurrent 2 MiB uploads
//
// BENCH_ROWS=icons (or any of rss,convert,files,icons,packages, comma-separated) runs only
// those groups, to iterate on one; the default runs them all.
//
// BENCH_STORAGE=s3 runs the image host on a bucket (STORAGE_URL, an s3rver child
// process on a free port): the `files` rows are then cached originals and previews
// served from the local cache of bucket objects, to compare with BENCH_STORAGE=disk
// (the default).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { Pool } from 'undici';
import { projectRoot } from '../src/lib/project-root.js';
import { storedZip, withComment } from './bench/test-files.js';
import {
  benchDir,
  buildDist,
  captureAnswer,
  compare,
  freePort,
  printComparisons,
  startReferences,
  startPinned,
  type Comparison,
  type Server,
} from './bench/harness.js';

const MiB = 1024 * 1024;
const RSS_SAMPLE_MS = 20;
const UPLOADS = 50;
const UPLOAD_BYTES = 2 * MiB;
const CONVERSION_IMAGES = 3;
const PHOTO_WIDTH = 1920;
const PHOTO_HEIGHT = 1080;
const THROUGHPUT_TARGET = 0.8;
const CONVERSION_TARGET = 1.2;
const RSS_TARGET = 200 * MiB;
/** The preview's options in src/services/imghost/images/imaging.ts, repeated for the bare script (as is its resize bound). */
const WEBP = { quality: 80, effort: 4 };
const BOUNDARY = '----benchimghost';
const ROW_GROUPS = ['rss', 'convert', 'files', 'icons', 'packages'] as const;
const PACKAGE_BYTES = MiB;
type RowGroup = (typeof ROW_GROUPS)[number];
const SELECTED = new Set<string>(process.env.BENCH_ROWS ? process.env.BENCH_ROWS.split(',').map((name) => name.trim()) : ROW_GROUPS);
for (const name of SELECTED) {
  if (!(ROW_GROUPS as readonly string[]).includes(name)) throw new Error(`BENCH_ROWS: unknown group "${name}" (use ${ROW_GROUPS.join(',')})`);
}
const runs = (group: RowGroup) => SELECTED.has(group);
const STORAGE = process.env.BENCH_STORAGE ?? 'disk';
if (STORAGE !== 'disk' && STORAGE !== 's3') throw new Error(`BENCH_STORAGE: "${STORAGE}" is neither disk nor s3`);
const BENCH_BUCKET = 'bench';

const self = fileURLToPath(import.meta.url);
const root = projectRoot();

// ---------------------------------------------------------------------------
// Bare references (child modes)

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
  stop(): void;
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
    stop: () => child.kill('SIGTERM'),
    convert(file) {
      return new Promise((resolve) => {
        waiting.push(resolve);
        child.stdin!.write(file + '\n');
      });
    },
  };
}

/** The built image host, pinned, its request log to a file; `storage`: the bucket's settings, if any. */
async function startImghost(dataDir: string, logFile: string, storage: Record<string, string> = {}): Promise<Server> {
  await mkdir(dataDir, { recursive: true });
  const port = await freePort();
  return startPinned({
    name: 'imghost',
    args: [join(root, 'dist', 'imghost.js')],
    cwd: dataDir, // no stray .env
    port,
    logFile,
    env: { DATA_DIR: dataDir, HOST: '127.0.0.1', IMGHOST_PORT: String(port), LOG_LEVEL: 'info', ...storage },
  });
}

/** s3rver (the tests' devDependency) as a child process with one bucket; the image host's settings for it. */
async function startBucket(dir: string): Promise<Child & { env: Record<string, string> }> {
  const port = await freePort();
  const bin = join(root, 'node_modules', 's3rver', 'bin', 's3rver.js');
  await mkdir(join(dir, 's3'), { recursive: true });
  const child: ChildProcess = spawn(process.execPath, [bin, '-d', join(dir, 's3'), '-a', '127.0.0.1', '-p', String(port), '-s', '--configure-bucket', BENCH_BUCKET], { stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    if (await fetch(endpoint).then(() => true, () => false)) break;
    if (tries > 100) throw new Error('s3rver did not start');
    await sleep(100);
  }
  return {
    process: child,
    stop: () => void child.kill(),
    env: {
      STORAGE_URL: `s3://${BENCH_BUCKET}/bench`,
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
}

async function main(): Promise<void> {
  if (process.env.BENCH_SKIP_BUILD !== '1') buildDist();
  const dir = await benchDir('bench-imghost-');
  const children: Child[] = [];
  const servers: Array<Pick<Server, 'stop'>> = [];
  const rows: Row[] = [];
  const comparisons: Comparison[] = [];
  try {
    const bucket = STORAGE === 's3' ? await startBucket(dir) : null;
    if (bucket) children.push(bucket);
    const imghost = await startImghost(join(dir, 'data'), join(dir, 'imghost.log'), bucket?.env);
    servers.push(imghost);
    const pid = imghost.pid;
    const pool = new Pool(imghost.origin, { connections: UPLOADS });

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
      });
    }

    const firstWebp = async (bytes: Buffer, name: string) => {
      const data = await uploadTo(pool, bytes, name);
      const started = performance.now();
      const { statusCode, body } = await pool.request({ path: new URL(data.webpUrl, imghost.origin).pathname, method: 'GET' });
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
      });
    }
    await pool.close();

    // Icons: compared with the same answer (bytes and headers) served from memory.
    if (runs('icons')) {
      const icon = await pickIcon(imghost.origin);
      if (icon === null) throw new Error('no icon listed by /api/svg_files');
      const iconRows = [
        { what: `GET /SF/${icon}?color=red (SVG, cached)`, query: '?color=red' },
        { what: `GET /SF/${icon}?png=true (cached)`, query: '?png=true' },
      ];
      for (const [index, row] of iconRows.entries()) {
        const path = `/SF/${encodeURIComponent(icon)}${row.query}`;
        const answer = await captureAnswer(imghost.origin, path);
        const references = await startReferences(`icon-${index}`, answer, dir);
        servers.push(references);
        comparisons.push(await compare({ what: row.what, ours: imghost, ...references, path, target: THROUGHPUT_TARGET }));
        await references.stop();
      }
    }

    // The original and the cached preview vs createReadStream of the same file.
    if (runs('files')) {
      const filePool = new Pool(imghost.origin, { connections: 2 });
      const upload = async () => {
        const bytes = await photoJpeg(1, PHOTO_WIDTH, PHOTO_HEIGHT, 90);
        const data = await uploadTo(filePool, bytes, 'photo-0.jpg');
        const { body } = await filePool.request({ path: new URL(data.webpUrl, imghost.origin).pathname, method: 'GET' });
        await body.arrayBuffer();
        return data;
      };
      sample ??= await upload();
      await filePool.close();
      // On a bucket, the files served are the local cache's copies.
      const folder = join(dir, 'data', ...(bucket ? ['cache', 'images'] : ['images']), sample.md5.slice(0, 2));
      const fileRows = [
        { what: 'GET original', path: new URL(sample.url, imghost.origin).pathname, file: join(folder, `${sample.md5}.jpg`) },
        { what: 'GET cached .webp', path: new URL(sample.webpUrl, imghost.origin).pathname, file: join(folder, `${sample.md5}.preview.webp`) },
      ];
      for (const [index, row] of fileRows.entries()) {
        const answer = { ...(await captureAnswer(imghost.origin, row.path)), file: row.file };
        const references = await startReferences(`file-${index}`, answer, dir);
        servers.push(references);
        const kib = ((await stat(row.file)).size / 1024).toFixed(0);
        comparisons.push(await compare({ what: `${row.what} (${kib} KiB)`, ours: imghost, ...references, path: row.path, target: THROUGHPUT_TARGET }));
        await references.stop();
      }
    }

    // A plugin package (ZIP) vs createReadStream of the same file.
    if (runs('packages')) {
      const zip = storedZip(PACKAGE_BYTES);
      const res = await fetch(imghost.origin + '/api/packages?name=bench', { method: 'POST', headers: { 'content-type': 'application/zip' }, body: new Uint8Array(zip) });
      const answer = (await res.json()) as { data: { sha256: string; url: string } };
      if (res.status !== 201) throw new Error(`package upload answered ${res.status}: ${JSON.stringify(answer)}`);
      const { sha256, url } = answer.data;
      const file = join(dir, 'data', 'packages', sha256.slice(0, 2), `${sha256}.zip`);
      const references = await startReferences('package', { ...(await captureAnswer(imghost.origin, url)), file }, dir);
      servers.push(references);
      comparisons.push(await compare({ what: `GET /pkg/ package (${PACKAGE_BYTES / 1024} KiB)`, ours: imghost, ...references, path: url, target: THROUGHPUT_TARGET }));
      await references.stop();
    }
  } finally {
    for (const child of children) child.stop();
    for (const server of servers.reverse()) await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
  if (rows.length > 0) printTable(rows);
  if (comparisons.length > 0) printComparisons(`node dist/imghost.js (${STORAGE === 's3' ? 'files in a bucket, local cache' : 'files on disk'}), request log to a file, vs plain and bare node:http`, comparisons);
}


async function pickIcon(base: string): Promise<string | null> {
  const res = await fetch(base + '/api/svg_files');
  if (res.status !== 200) return null;
  const names = (await res.json()) as unknown;
  if (!Array.isArray(names) || names.length === 0) return null;
  const preferred = names.find((name) => name === 'home.svg') ?? names[0];
  return String(preferred).replace(/\.svg$/, '');
}

function printTable(rows: Row[]): void {
  const header: Row = { what: 'measure', ours: 'image host', reference: 'bare reference', ratio: 'ratio', target: 'target', ok: 'met' };
  const keys = Object.keys(header) as (keyof Row)[];
  const widths = keys.map((key) => Math.max(...[header, ...rows].map((row) => row[key].length)));
  const line = (row: Row) => '| ' + keys.map((key, i) => row[key].padEnd(widths[i]!)).join(' | ') + ' |';
  console.log(line(header));
  console.log('|' + widths.map((width) => '-'.repeat(width + 2)).join('|') + '|');
  for (const row of rows) console.log(line(row));
}

// ---------------------------------------------------------------------------

const [mode] = process.argv.slice(2);
if (mode === '--bare-convert') await bareConvert();
else await main();
