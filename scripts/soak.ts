// The soak with faults (docs/soak.md): the built services as a deployment runs
// them (PostgreSQL, two sites behind a round-robin proxy, two image hosts behind
// another, on one bucket when object storage is available), seeded, driven at a
// fixed rate with a realistic mix while PostgreSQL is restarted, an image host is
// killed and the bucket stops; then judged (PASS/FAIL per condition, exit 1 on a
// FAIL) and written as JSON and an SVG into SOAK_OUT. Builds nothing: run
//
//   npx tsc -p tsconfig.json && npx tsc -p test/tsconfig.json
//   SOAK_RATE=100 SOAK_MINUTES=30 node .test-build/scripts/soak.js
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { Pool } from 'undici';
import { createLogger } from '../src/lib/log.js';
import { projectRoot } from '../src/lib/project-root.js';
import { migrate } from '../src/db/migrate.js';
import { createPool } from '../src/db/pool.js';
import { freePort } from './bench/harness.js';
import { drawChart } from './soak/chart.js';
import { createDriver } from './soak/driver.js';
import { runFaults } from './soak/faults.js';
import { createMix, MIX } from './soak/mix.js';
import { createRecorder, p99 } from './soak/record.js';
import { PUBLIC_IMAGE_HOST, seedSoak, sha256, type StoredFile } from './soak/seed.js';
import {
  bucketService, bucketUnavailable, imghostScript, nodeService, postgresService, proxyScript, rssOf, siteScript, type Service,
} from './soak/services.js';
import { readSoakSettings } from './soak/settings.js';
import { judge } from './soak/verdict.js';

const BUCKET = 'soak-bucket';
const S3_KEY = 'S3RVER';
const MiB = 1024 * 1024;
const REFETCH_AT_ONCE = 8;
const root = projectRoot();
const log = createLogger({ component: 'soak' }, { level: 'warn' });
const say = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A photo-like JPEG (noise over gradients) that uploads are made from. */
async function baseJpeg(): Promise<Buffer> {
  const width = 480;
  const height = 270;
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = ((i % (width * 3)) / 6 + Math.random() * 60) & 255;
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
}

/** Every stored file fetched from each image host, hashed; answers what is missing or changed. */
async function refetch(files: StoredFile[], hosts: Service[]): Promise<{ checked: number; lost: string[] }> {
  const lost: string[] = [];
  for (const host of hosts) {
    const pool = new Pool(host.origin, { connections: REFETCH_AT_ONCE });
    let next = 0;
    await Promise.all(Array.from({ length: REFETCH_AT_ONCE }, async () => {
      while (next < files.length) {
        const file = files[next++]!;
        try {
          const { statusCode, body } = await pool.request({ path: file.path, method: 'GET', headersTimeout: 30_000, bodyTimeout: 30_000 });
          const bytes = Buffer.from(await body.arrayBuffer());
          if (statusCode !== 200) lost.push(`${host.name} ${file.path}: ${statusCode}`);
          else if (sha256(bytes) !== file.sha256) lost.push(`${host.name} ${file.path}: other bytes`);
        } catch (error) {
          lost.push(`${host.name} ${file.path}: ${(error as Error).message}`);
        }
      }
    }));
    await pool.close();
  }
  return { checked: files.length, lost };
}

async function main(): Promise<number> {
  const settings = readSoakSettings();
  for (const built of [siteScript(), imghostScript(), proxyScript()]) {
    if (!existsSync(built)) throw new Error(`${built} is missing: build first (npx tsc -p tsconfig.json && npx tsc -p test/tsconfig.json)`);
  }
  const work = await mkdtemp(join(process.env.SOAK_WORK_DIR ?? tmpdir(), 'soak-'));
  // Readable by the PostgreSQL user the embedded cluster runs as (when run as root), so the cluster stays inside it.
  await chmod(work, 0o755);
  const logs = join(work, 'logs');
  await mkdir(logs);
  say(`soak: ${settings.rate} requests/s for ${(settings.seconds / 60).toFixed(2)} min; work folder ${work}; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  if (settings.scaled.length) say(`scaled for a run shorter than 30 minutes: ${settings.scaled.join('; ')}`);

  const unavailable = bucketUnavailable();
  const started: Service[] = [];
  const start = async (service: Service) => {
    await service.start();
    started.push(service);
    return service;
  };
  const [pgPort, s3Port, site1Port, site2Port, img1Port, img2Port, siteProxyPort, imgProxyPort] = await Promise.all(Array.from({ length: 8 }, () => freePort()));
  const postgres = postgresService(join(work, 'pg'), pgPort!, log);
  let exitCode = 1;
  try {
    await start(postgres);
    const sql = createPool(postgres.url());
    await migrate(sql, log);

    let bucket: Service | null = null;
    const storage: Record<string, string> = {};
    if (unavailable === null) {
      bucket = await start(bucketService({ port: s3Port!, dir: join(work, 'bucket'), bucket: BUCKET, logDir: logs, cwd: work }));
      Object.assign(storage, {
        STORAGE_URL: `s3://${BUCKET}/soak`, S3_ENDPOINT: bucket.origin, S3_REGION: 'us-east-1',
        S3_ACCESS_KEY_ID: S3_KEY, S3_SECRET_ACCESS_KEY: S3_KEY, S3_FORCE_PATH_STYLE: 'true', STORAGE_CACHE_MAX_BYTES: String(64 * MiB),
      });
      say('image hosts on one bucket (s3rver), separate data folders');
    } else {
      say(`bucket faults skipped: object storage not available (${unavailable}); both image hosts share one data folder`);
    }
    const imghostOf = (name: string, port: number) =>
      nodeService({
        name, script: imghostScript(), port, cwd: work, logDir: logs, readyPath: '/healthz',
        env: {
          HOST: '127.0.0.1', IMGHOST_PORT: String(port), DATA_DIR: join(work, bucket ? name : 'imghost'), TRUST_PROXY: '1',
          UV_THREADPOOL_SIZE: '4', LOG_LEVEL: 'warn', ...storage,
        },
      });
    const imghosts = [await start(imghostOf('imghost-1', img1Port!)), await start(imghostOf('imghost-2', img2Port!))];
    const imgProxy = await start(nodeService({
      name: 'img-proxy', script: proxyScript(), args: [String(imgProxyPort), ...imghosts.map((h) => h.origin)],
      env: {}, port: imgProxyPort!, cwd: work, logDir: logs, readyPath: '/healthz',
    }));

    const seeding = performance.now();
    const data = await seedSoak(sql, imgProxy.origin, settings, log);
    await sql.end({ timeout: 5 });
    say(`seeded ${settings.plugins} plugins (${data.plugins.length} approved), ${data.hosted.length} with hosted versions, ` +
      `${data.images.length} pictures, ${data.visitorCookies.length} visitor accounts in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);

    const siteProxyOrigin = `http://127.0.0.1:${siteProxyPort}`;
    const siteOf = (name: string, port: number) =>
      nodeService({
        name, script: siteScript(), port, cwd: work, logDir: logs, readyPath: '/readyz',
        env: {
          HOST: '127.0.0.1', SITE_PORT: String(port), DATA_DIR: join(work, name), DATABASE_URL: postgres.url(), TRUST_PROXY: '1',
          PUBLIC_URL: siteProxyOrigin, IMAGE_HOST_URL: imgProxy.origin, IMAGE_HOST_PUBLIC_URL: PUBLIC_IMAGE_HOST,
          LAUNCHER_CONFIG: join(root, 'config', 'launcher.example.json'), LOG_LEVEL: 'warn',
        },
      });
    const sites = [await start(siteOf('site-1', site1Port!)), await start(siteOf('site-2', site2Port!))];
    const siteProxy = await start(nodeService({
      name: 'site-proxy', script: proxyScript(), args: [String(siteProxyPort), ...sites.map((s) => s.origin)],
      // The update check is a read with a body: asked of the other site on a 503, as reads are (proxy.ts).
      env: { RETRY_503_POSTS: '/apps/api/updates' }, port: siteProxyPort!, cwd: work, logDir: logs, readyPath: '/healthz',
    }));

    const recorder = createRecorder(settings.bucketSeconds, settings.seconds);
    const mix = createMix(data, settings.rate, await baseJpeg());
    const driver = createDriver({ site: siteProxy.origin, img: imgProxy.origin }, mix, recorder, settings);
    const measured: Service[] = [...sites, ...imghosts, postgres, ...(bucket ? [bucket] : []), siteProxy, imgProxy];
    say(`load: ${mix.launchers} launchers polling /api/info every 5 s; mix per 100 requests ${JSON.stringify(MIX)}`);
    say(`faults planned: ${settings.faults.map((f) => `${f.kind} at ${f.at} s`).join(', ') || 'none'}`);

    let t0 = 0;
    const now = () => (performance.now() - t0) / 1000;
    let sampling = true;
    let faults: ReturnType<typeof runFaults> | undefined;
    let sampler: Promise<void> | undefined;
    let lastRow = -1;
    await driver.run(settings.seconds, (zero) => {
      t0 = zero;
      faults = runFaults(settings.faults, { postgres, imghost: imghosts[1]!, bucket }, now, say);
      sampler = (async () => {
        while (sampling) {
          const values: Record<string, number> = {};
          for (const service of measured) values[service.name] = rssOf(service.pid());
          recorder.sampleRss(now(), values);
          const row = Math.floor(now() / settings.bucketSeconds) - 1;
          if (row > lastRow && recorder.rows[row]) {
            lastRow = row;
            const r = recorder.rows[row]!;
            const errors = Object.values(r.errors).reduce((a, b) => a + b, 0);
            say(`row ${row}: ${r.requests} requests, ${errors} errors ${JSON.stringify(r.errors)}, p99 ${p99(r.latencies).toFixed(0)} ms, ` +
              `RSS ${Object.entries(values).map(([name, rss]) => `${name} ${(rss / MiB).toFixed(0)}`).join(' ')} MiB`);
          }
          await sleep(settings.rssSampleSeconds * 1000);
        }
      })();
    });
    await faults!.finish();
    sampling = false;
    await sampler;
    await driver.close();

    const files = [...data.stored, ...recorder.uploads];
    const again = await refetch(files, imghosts);
    const restarted = new Set(faults!.windows.map((w) => (w.kind === 'postgres' ? 'postgres' : w.kind === 'imghost' ? imghosts[1]!.name : 's3rver')));
    // s3rver and the proxies stand in for S3 and nginx: drawn, not judged.
    const services = [...sites, ...imghosts, postgres].map((s) => s.name);
    const conditions = judge(settings, recorder, faults!.windows, { roles: services, restarted }, again);

    const rows = recorder.rows.map((row, index) => {
      const rss: Record<string, number> = {};
      for (const service of measured) {
        const inRow = recorder.rss.filter((s) => Math.floor(s.t / settings.bucketSeconds) === index && (s.values[service.name] ?? 0) > 0);
        rss[service.name] = inRow.length ? inRow.reduce((sum, s) => sum + s.values[service.name]!, 0) / inRow.length / MiB : 0;
      }
      return { row: index, fromSeconds: index * settings.bucketSeconds, requests: row.requests, errors: row.errors, p99Ms: p99(row.latencies), rssMiB: rss };
    });
    const result = {
      settings: { ...settings, bucket: unavailable === null ? 's3rver' : `none: ${unavailable}` },
      startedAt: new Date(Date.now() - now() * 1000).toISOString(),
      load: loadavg(),
      faults: faults!.windows,
      faultErrors: faults!.errors,
      rows,
      perKind: Object.fromEntries(recorder.perKind),
      uploads: { stored: files.length, lost: again.lost },
      conditions,
    };
    await mkdir(settings.out, { recursive: true });
    await writeFile(join(settings.out, 'soak.json'), JSON.stringify(result, null, 2) + '\n');
    await writeFile(join(settings.out, 'soak.svg'), drawChart({
      title: `Soak: ${settings.rate} requests/s for ${(settings.seconds / 60).toFixed(1)} min, ${faults!.windows.length} faults`,
      bucketSeconds: settings.bucketSeconds,
      seconds: settings.seconds,
      p99: rows.map((r) => r.p99Ms),
      errors: rows.map((r) => Object.values(r.errors).reduce((a, b) => a + b, 0)),
      rss: Object.fromEntries(measured.map((s) => [s.name, rows.map((r) => r.rssMiB[s.name] ?? 0)])),
      windows: faults!.windows,
      graceSeconds: settings.graceSeconds,
    }));
    const total = rows.reduce((sum, r) => sum + r.requests, 0);
    say(`\n${total} requests, ${recorder.failures.length} failed; ${files.length} stored files checked; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    for (const fault of faults!.errors) say(`fault error: ${fault}`);
    for (const condition of conditions) say(`${condition.pass ? 'PASS' : 'FAIL'}  ${condition.name}: ${condition.detail}`);
    say(`results: ${join(settings.out, 'soak.json')}, ${join(settings.out, 'soak.svg')}` +
      (process.env.SOAK_KEEP === '1' ? `; service logs in ${logs}` : ' (SOAK_KEEP=1 keeps the services\' logs)'));
    exitCode = conditions.every((c) => c.pass) && faults!.errors.length === 0 ? 0 : 1;
  } finally {
    for (const service of started.reverse()) await service.stop().catch((error: unknown) => say(`stopping ${service.name}: ${String(error)}`));
    if (process.env.SOAK_KEEP !== '1') await rm(work, { recursive: true, force: true });
  }
  return exitCode;
}

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`soak failed to run: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 2;
}
