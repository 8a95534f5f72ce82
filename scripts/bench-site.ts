// GET /api/info throughput of the site against a bare node:http server answering
// the same bytes with the same headers: the bare one is the ceiling, and the ratio
// says what our core (routing, request log, security headers) costs per request.
//
//   npx tsc -p test/tsconfig.json && node .test-build/scripts/bench-site.js
//   BENCH_SECONDS=5 BENCH_ROUNDS=1 BENCH_CONNECTIONS=64
//
// Each server runs in a child process (this same file, with a mode argument) so the
// load generator does not share its event loop. The site child runs createSite
// with a postgres.js pool on an unreachable address: /api/info never touches the
// database and postgres.js connects lazily, so no PostgreSQL is needed and start-up
// takes milliseconds. Its log goes to /dev/null through the real JSON logger, so
// the request log line is paid for as in production. Load is on 127.0.0.1 only,
// bounded in time. Also measured, for the record: the site with a logger that does
// nothing at all, to show what the request log line costs; and each server's CPU
// time per request (process.cpuUsage over the measured window), which stays
// meaningful when other work on the machine makes requests/s noisy.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { loadConfig } from '../src/core/config.js';
import { createLogger, type Logger } from '../src/core/log.js';
import { projectRoot } from '../src/core/project-root.js';
import { nextRequestId } from '../src/core/request-id.js';
import { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, listen, REQUEST_TIMEOUT_MS } from '../src/core/server.js';
import { createPool } from '../src/db/pool.js';
import { createSite } from '../src/site/app.js';
import { parseLauncherDocument } from '../src/site/launcher/document.js';
import { LAUNCHER_CACHE_CONTROL, prepareJson } from '../src/site/launcher/prepared.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = 1;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const TARGET_RATIO = 0.85;
const CHILD_START_TIMEOUT_MS = 15_000;
/** Nothing listens on port 1: any query would fail fast, and none is made. */
const UNREACHABLE_DATABASE = 'postgres://bench@127.0.0.1:1/none';
const EXAMPLE = join(projectRoot(), 'config', 'launcher.example.json');

type Mode = 'site' | 'site-silent' | 'bare';

/**
 * Logs nothing, and says so: with enabled() false the request log steps aside (no
 * timing, no listener, no line), where silentLogger would still build each line.
 */
const NOTHING_LOGGER: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => NOTHING_LOGGER,
  raw: () => {},
  enabled: () => false,
};

async function serveSite(silent: boolean): Promise<number> {
  const config = loadConfig({
    HOST: '127.0.0.1',
    SITE_PORT: '0',
    DATA_DIR: join(tmpdir(), 'lw-bench'),
    DATABASE_URL: UNREACHABLE_DATABASE,
    LAUNCHER_CONFIG: EXAMPLE,
  });
  const log = silent ? NOTHING_LOGGER : createLogger({ pid: process.pid }, { level: 'info' });
  const site = createSite({ config, sql: createPool(UNREACHABLE_DATABASE), log });
  return (await listen(site.handler, '127.0.0.1', 0)).port;
}

/**
 * The same bytes and header set as the site's 200 and 304, with nothing else in the
 * way; its request ids are made as the site makes them.
 */
async function serveBare(): Promise<number> {
  const parsed = parseLauncherDocument(readFileSync(EXAMPLE));
  if (!parsed.ok) throw new Error('example config does not parse: ' + parsed.reason);
  const answer = prepareJson({ success: true, ...parsed.document.info });
  const server = createServer(
    { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS },
    (req, res) => {
      const common = {
        'X-Request-Id': nextRequestId(),
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'strict-origin-when-cross-origin',
        'X-Frame-Options': 'DENY',
        ETag: answer.etag,
        'Cache-Control': LAUNCHER_CACHE_CONTROL,
      };
      if (req.headers['if-none-match'] === answer.etag) {
        res.writeHead(304, common).end();
        return;
      }
      res
        .writeHead(200, { ...common, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': answer.body.length })
        .end(answer.body);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

interface Child {
  process: ChildProcess;
  origin: string;
}

function startChild(mode: Mode): Promise<Child> {
  return new Promise((resolve, reject) => {
    // stdout to /dev/null: the site's log lines are written (and paid for) but not kept.
    const child = fork(fileURLToPath(import.meta.url), [mode], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: { ...process.env, LOG_LEVEL: 'info' } });
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${mode} server did not start`));
    }, CHILD_START_TIMEOUT_MS);
    child.once('message', (message: { port: number }) => {
      clearTimeout(timer);
      resolve({ process: child, origin: `http://127.0.0.1:${message.port}` });
    });
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
}

function stopChild(child: Child): Promise<void> {
  return new Promise((resolve) => {
    if (child.process.exitCode !== null) return resolve();
    child.process.once('exit', () => resolve());
    child.process.kill('SIGTERM');
  });
}

/** The child's CPU time (user + system) in microseconds, asked over IPC. */
function cpuOf(child: Child): Promise<number> {
  return new Promise((resolve) => {
    child.process.once('message', (message: { cpu: number }) => resolve(message.cpu));
    child.process.send('cpu');
  });
}

interface Measured {
  rate: number;
  requests: number;
}

/** Requests per second over `seconds`, CONNECTIONS requests in flight on keep-alive connections. */
async function load(origin: string, headers: Record<string, string>, expected: number, seconds: number): Promise<Measured> {
  const pool = new Pool(origin, { connections: CONNECTIONS, pipelining: 1 });
  let done = 0;
  let wrong = 0;
  const deadline = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const res = await pool.request({ path: '/api/info', method: 'GET', headers });
      await res.body.dump();
      if (res.statusCode === expected) done++;
      else wrong++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  if (wrong > 0) throw new Error(`${origin}: ${wrong} answers were not ${expected}`);
  return { rate: done / elapsed, requests: done };
}

async function etagOf(origin: string): Promise<string> {
  const res = await fetch(origin + '/api/info');
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${origin}/api/info answered ${res.status}`);
  return res.headers.get('etag')!;
}

async function main(): Promise<void> {
  const modes: Mode[] = ['site', 'bare', 'site-silent'];
  const children = new Map<Mode, Child>();
  try {
    for (const mode of modes) children.set(mode, await startChild(mode));
    const etag = await etagOf(children.get('site')!.origin);
    if ((await etagOf(children.get('bare')!.origin)) !== etag) throw new Error('bare server serves other bytes');
    const kinds: Array<{ label: string; headers: Record<string, string>; status: number }> = [
      { label: 'GET /api/info  200', headers: {}, status: 200 },
      { label: 'GET /api/info  304 (If-None-Match)', headers: { 'if-none-match': etag }, status: 304 },
    ];
    const best = new Map<string, number>();
    const cpu = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of kinds) {
        // Interleaved, so background load from elsewhere hits both sides alike.
        for (const mode of modes) {
          const child = children.get(mode)!;
          await load(child.origin, kind.headers, kind.status, WARMUP_SECONDS);
          const cpuBefore = await cpuOf(child);
          const measured = await load(child.origin, kind.headers, kind.status, SECONDS);
          const perRequest = ((await cpuOf(child)) - cpuBefore) / measured.requests;
          const key = `${kind.label}|${mode}`;
          best.set(key, Math.max(best.get(key) ?? 0, measured.rate));
          cpu.set(key, Math.min(cpu.get(key) ?? Infinity, perRequest));
        }
      }
    }
    const row = (cells: string[]) => '| ' + cells.join(' | ') + ' |';
    const lines = [
      row(['request', 'ours req/s', 'bare req/s', 'ours/bare', `target ≥ ${TARGET_RATIO * 100}%`, 'ours without request log, req/s', 'server CPU µs/req: ours / no log / bare']),
      row(['---', '---:', '---:', '---:', '---', '---:', '---:']),
    ];
    const us = (mode: Mode, label: string) => cpu.get(`${label}|${mode}`)!.toFixed(1);
    for (const kind of kinds) {
      const ours = best.get(`${kind.label}|site`)!;
      const bare = best.get(`${kind.label}|bare`)!;
      const silent = best.get(`${kind.label}|site-silent`)!;
      const ratio = ours / bare;
      lines.push(
        row([
          kind.label,
          ours.toFixed(0),
          bare.toFixed(0),
          (ratio * 100).toFixed(1) + '%',
          ratio >= TARGET_RATIO ? 'met' : 'MISSED',
          silent.toFixed(0),
          `${us('site', kind.label)} / ${us('site-silent', kind.label)} / ${us('bare', kind.label)}`,
        ]),
      );
    }
    process.stdout.write(`\n${CONNECTIONS} keep-alive connections, ${SECONDS} s per cell after ${WARMUP_SECONDS} s warm-up, best of ${ROUNDS} round(s)\n\n${lines.join('\n')}\n`);
  } finally {
    await Promise.all([...children.values()].map(stopChild));
  }
}

const mode = process.argv[2] as Mode | undefined;
if (mode === 'site' || mode === 'site-silent' || mode === 'bare') {
  const port = mode === 'bare' ? await serveBare() : await serveSite(mode === 'site-silent');
  process.send!({ port });
  process.on('message', () => {
    const used = process.cpuUsage();
    process.send!({ cpu: used.user + used.system });
  });
  // The parent's SIGTERM, or the parent going away, ends the child.
  process.on('SIGTERM', () => process.exit(0));
  process.on('disconnect', () => process.exit(0));
} else {
  await main();
}
