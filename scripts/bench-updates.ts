// Benchmark of the launchers' update check (POST /apps/api/updates, issue 19) on the
// built site (`node dist/site.js`, its request log written to a file) over a real
// PostgreSQL: a catalogue of 10,000 approved plugins, each with 3 hosted versions
// (the third live), and a launcher asking about 200 installed plugins (half of them
// one version behind, half by hash). Server pinned to core 0, the load
// (scripts/bench/post-load.ts: autocannon, 50 connections, each request from its
// own address so the per-address limit stays out of the way) to core 1, and
// PostgreSQL beside the load, off the server core (bench/pin-postgres.ts); the
// median of 3 runs. Target: p99 under 20 ms. Each run of ours is followed by one
// of the plain reference (bench/plain-post.ts: node:http reading the body and
// answering the same bytes), so that what the load generator and the machine
// allow is measured beside ours, and each run says how busy the load generator
// was. Run after `npx tsc -p test/tsconfig.json`:
//
//   node .test-build/scripts/bench-updates.js
//
// The answer is kept per store generation, so the load measures the kept answer
// plus the generation read and the limiter's hit; "first after a change" is the
// answer built afresh (one SQL round trip, check-updates.sql), median of 5.
// PostgreSQL: BENCH_DATABASE_URL (a server URL on which it may create a database),
// else an embedded one in a temporary folder.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { createLogger } from '../src/lib/log.js';
import { pinPostgres } from './bench/pin-postgres.js';
import { projectRoot } from '../src/lib/project-root.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';
import { createPool } from '../src/db/pool.js';
import { benchDir, buildDist, captureAnswer, CONNECTIONS, cpuOf, freePort, machineLoad, RUN_SECONDS, RUNS, startPinned, startPlainPost } from './bench/harness.js';

const PLUGINS = Number(process.env.BENCH_PLUGINS ?? 10_000);
const INSTALLED = Number(process.env.BENCH_INSTALLED ?? 200);
const P99_TARGET_MS = 20;
const LOAD_CORE = process.env.BENCH_LOAD_CORE ?? '1';
// What real launchers send: Bloret-Launcher's Python `requests` asks `gzip, deflate`
// by default, BloraLauncher's Dart http (dart:io HttpClient) `gzip`. BENCH_ACCEPT_ENCODING=''
// sends none (the whole JSON answer on the wire).
const ACCEPT_ENCODING = process.env.BENCH_ACCEPT_ENCODING ?? 'gzip, deflate';
// BENCH_RATE (requests/s): a fixed load instead of the most the site takes, to compare CPU per answer.
const RATE = process.env.BENCH_RATE ?? '';
const root = projectRoot();
const log = createLogger({ component: 'bench-updates' }, { level: 'warn' });

const hashOf = (n: number, v: number) => (n * 10 + v).toString(16).padStart(64, '0');

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  other: number;
  /** The server's CPU time (user + system, /proc/<pid>/stat) per answer, µs. */
  cpuUs: number;
  /** The load generator's own CPU time over the run's wall time: 1 is its core full. */
  loadBusy: number;
}

function load(url: string, bodyFile: string, seconds: number, serverPid: number): Promise<Figures> {
  const script = join(root, '.test-build', 'scripts', 'bench', 'post-load.js');
  const cpuBefore = cpuOf(serverPid);
  return new Promise((resolve, reject) => {
    const child = spawn('taskset', ['-c', LOAD_CORE, process.execPath, script, url, bodyFile, String(CONNECTIONS), String(seconds), ACCEPT_ENCODING, RATE], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`load exited with ${code}`));
      const result = JSON.parse(out);
      const ok = result.statusCodeStats?.['200']?.count ?? 0;
      const all = Object.values(result.statusCodeStats ?? {}).reduce((sum: number, stat: any) => sum + stat.count, 0);
      const cpuUs = all > 0 ? (cpuOf(serverPid) - cpuBefore) / all : NaN;
      const loadBusy = result.loadCpuUs / (seconds * 1e6);
      resolve({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, ok, other: all - ok + result.errors + result.timeouts, cpuUs, loadBusy });
    });
  });
}

/**
 * Transactions committed in database `name` (pg_stat_database), after the backends'
 * pending counts reach the statistics (at most a second after they go idle).
 */
async function transactionsOf(admin: postgres.Sql, name: string): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await admin`select pg_stat_clear_snapshot()`;
  const [row] = await admin<Array<{ n: string }>>`select (xact_commit + xact_rollback)::text as n from pg_stat_database where datname = ${name}`;
  return Number(row!.n);
}

const percents = (runs: Figures[]) => runs.map((run) => `${(run.loadBusy * 100).toFixed(0)}%`).join(', ');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  if (process.env.BENCH_SKIP_BUILD !== '1') buildDist();
  process.stdout.write(`${machineLoad()}\n`);
  let embedded: EmbeddedDatabase | undefined;
  let serverUrl = process.env.BENCH_DATABASE_URL;
  const dir = await benchDir('bench-updates-');
  if (!serverUrl) {
    embedded = await startEmbeddedPostgres({ dir: join(dir, 'pg'), log, ephemeral: true });
    serverUrl = embedded.url;
  }
  const name = `lw_bench_updates_${process.pid}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  // Off the server core, beside the load (pin-postgres.ts); BENCH_PG_CORES='' leaves it where the scheduler puts it.
  const pgCores = process.env.BENCH_PG_CORES ?? LOAD_CORE;
  if (pgCores !== '') {
    const [backend] = await admin<Array<{ pid: number }>>`select pg_backend_pid() as pid`;
    process.stdout.write(`${pinPostgres(backend!.pid, pgCores)}\n`);
  }
  await admin.unsafe(`create database ${name}`);
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = '/' + name;
  const sql = createPool(dbUrl.href);
  let site;
  let plain;
  try {
    await migrate(sql, log);
    const started = performance.now();
    await sql.begin(async (tx) => {
      await tx.unsafe('set local statement_timeout = 0');
      const [author] = await tx<Array<{ id: string }>>`insert into users (username) values ('bench-author') returning id::text as id`;
      await tx`
        insert into plugins (id, submitter_id, name, version, author, description, download, sha256, status)
        select 'bench-' || n, ${author!.id}, 'Bench plugin ' || n, '3.0.0', 'Bench', 'A plugin',
               'https://img.example.com/pkg/' || lpad(to_hex(n * 10 + 3), 64, '0') || '/bench-' || n || '-3.0.0.zip',
               lpad(to_hex(n * 10 + 3), 64, '0'), 'approved'
          from generate_series(0, ${PLUGINS - 1}) as n`;
      await tx`
        insert into plugin_versions (plugin_id, version, changelog, sha256, size, download, entry_count, files, status, created_at)
        select 'bench-' || n, v || '.0.0', '- Changes of ' || v || '.0.0', lpad(to_hex(n * 10 + v), 64, '0'), 40000 + n,
               'https://img.example.com/pkg/' || lpad(to_hex(n * 10 + v), 64, '0') || '/bench-' || n || '-' || v || '.0.0.zip',
               12, '[]', 'approved', now() - interval '1 day' * (4 - v)
          from generate_series(0, ${PLUGINS - 1}) as n, generate_series(1, 3) as v`;
      await tx.unsafe('analyze');
    });
    process.stdout.write(`${PLUGINS} plugins with 3 versions each seeded in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);

    // 200 installed plugins spread over the catalogue: even ones by version (1 behind), odd ones by hash (live or 1 behind).
    const step = Math.floor(PLUGINS / INSTALLED);
    const plugins = Array.from({ length: INSTALLED }, (_, k) => {
      const n = k * step;
      return k % 2 === 0 ? { id: `bench-${n}`, version: '2.0.0' } : { id: `bench-${n}`, sha256: hashOf(n, k % 4 === 1 ? 3 : 2) };
    });
    const bodyFile = join(dir, 'body.json');
    writeFileSync(bodyFile, JSON.stringify({ plugins }));

    const port = await freePort();
    const logFile = join(dir, 'site.log');
    site = await startPinned({
      name: 'site',
      args: [join(root, 'dist', 'site.js')],
      cwd: dir,
      port,
      logFile,
      readyPath: '/readyz',
      env: {
        HOST: '127.0.0.1', SITE_PORT: String(port), DATA_DIR: dir, DATABASE_URL: dbUrl.href, TRUST_PROXY: 'true',
        LAUNCHER_CONFIG: join(root, 'config', 'launcher.example.json'), PUBLIC_URL: `http://127.0.0.1:${port}`,
        IMAGE_HOST_PUBLIC_URL: 'https://img.example.com', LOG_LEVEL: 'info',
      },
    });
    const url = `${site.origin}/apps/api/updates`;
    const check = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.1' }, body: readFileSync(bodyFile) });
    const answer = (await check.json()) as { updates: unknown[]; unknown: unknown[] };
    if (check.status !== 200) throw new Error(`the update check answered ${check.status}`);
    // The bytes on the wire, as the load asks (fetch would ask and decode on its own: node:http does not),
    // answered again by the plain reference.
    const asked: Record<string, string> = { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.2' };
    if (ACCEPT_ENCODING !== '') asked['accept-encoding'] = ACCEPT_ENCODING;
    const wire = await captureAnswer(site.origin, '/apps/api/updates', asked, readFileSync(bodyFile));
    const coding = wire.headers.find(([header]) => header === 'content-encoding')?.[1];
    process.stdout.write(`answer: ${answer.updates.length} updates, ${answer.unknown.length} unknown; ${JSON.stringify(answer).length} bytes of JSON, ` +
      `${wire.body.length} on the wire (Accept-Encoding: ${ACCEPT_ENCODING || 'none'}, Content-Encoding: ${coding ?? 'none'})\n`);
    plain = await startPlainPost('plain-updates', wire, dir);
    const plainUrl = `${plain.origin}/apps/api/updates`;

    // First answer after a change: the generation moves, the answer is built afresh.
    const firsts: number[] = [];
    for (let i = 0; i < 5; i++) {
      await sql`update plugins set description = ${`A plugin ${i}`} where id = 'bench-1'`;
      const t0 = performance.now();
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': `192.0.2.${10 + i}` }, body: readFileSync(bodyFile) });
      await res.arrayBuffer();
      firsts.push(performance.now() - t0);
    }

    // Ours and the plain reference alternate, so that load from elsewhere on the machine hits both alike.
    await load(url, bodyFile, 2, site.pid);
    await load(plainUrl, bodyFile, 2, plain.pid);
    const logBefore = readFileSync(logFile).length;
    const transactionsBefore = await transactionsOf(admin, name);
    const runs: Figures[] = [];
    const plainRuns: Figures[] = [];
    for (let i = 0; i < RUNS; i++) {
      runs.push(await load(url, bodyFile, RUN_SECONDS, site.pid));
      plainRuns.push(await load(plainUrl, bodyFile, RUN_SECONDS, plain.pid));
    }
    const transactions = (await transactionsOf(admin, name)) - transactionsBefore;
    const logLines = readFileSync(logFile).subarray(logBefore).toString().split('\n').filter(Boolean).length;
    const answered = runs.reduce((sum, run) => sum + run.ok + run.other, 0);
    const p99 = median(runs.map((run) => run.p99));
    process.stdout.write(
      `POST /apps/api/updates, ${INSTALLED} installed of ${PLUGINS} plugins, ${CONNECTIONS} connections${RATE ? ` at ${RATE} requests/s` : ''}, median of ${RUNS} x ${RUN_SECONDS} s:\n` +
        `  ${median(runs.map((run) => run.rps)).toFixed(0)} requests/s, p50 ${median(runs.map((run) => run.p50))} ms, p99 ${p99} ms ` +
        `(target < ${P99_TARGET_MS} ms: ${p99 < P99_TARGET_MS ? 'met' : 'NOT met'}); first answer after a change ${median(firsts).toFixed(1)} ms\n` +
        `  site CPU per answer ${median(runs.map((run) => run.cpuUs)).toFixed(0)} µs (runs: ${runs.map((run) => run.cpuUs.toFixed(0)).join(', ')}; p99s: ${runs.map((run) => run.p99).join(', ')} ms)\n` +
        `  load generator busy ${percents(runs)} of its core\n` +
        `  plain node:http (reads the body, answers the same bytes, plain-post.ts): ${median(plainRuns.map((run) => run.rps)).toFixed(0)} requests/s, ` +
        `p50 ${median(plainRuns.map((run) => run.p50))} ms, p99 ${median(plainRuns.map((run) => run.p99))} ms (p99s: ${plainRuns.map((run) => run.p99).join(', ')} ms), ` +
        `CPU per answer ${median(plainRuns.map((run) => run.cpuUs)).toFixed(0)} µs; load generator busy ${percents(plainRuns)}\n` +
        `  answers other than 200: ${runs.reduce((sum, run) => sum + run.other, 0)}; request log lines per answer ${(logLines / Math.max(answered, 1)).toFixed(2)} (${logFile})\n` +
        `  PostgreSQL transactions per answer ${(transactions / Math.max(answered, 1)).toFixed(3)} (${transactions} for ${answered} answers: the shared generation reads and the limiter's adds)\n` +
        `  ${machineLoad()}\n`,
    );
  } finally {
    await site?.stop();
    await plain?.stop();
    await sql.end({ timeout: 2 });
    await admin.unsafe(`drop database if exists ${name}`).catch(() => {});
    await admin.end({ timeout: 2 });
    await embedded?.stop();
  }
}

await main();
