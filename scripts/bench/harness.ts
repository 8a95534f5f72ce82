// The shared harness of the HTTP benchmarks: a service measured as operators run it,
// against a bare node:http server answering the same bytes.
//
// - Ours is the built entrypoint (`node dist/site.js`, `node dist/imghost.js`), its
//   stdout (the request log, one JSON line per request) redirected to a file, as
//   under a process manager. The log is counted after each run: no line, no figure.
// - Two references answer the status, headers and body that ours sent:
//   scripts/bench/plain.ts, node:http at its plainest (one header object made at
//   start-up, `res.writeHead(status, headers); res.end(body)`), the one the targets
//   are set against; and scripts/bench/bare.ts, which spreads a fresh header object
//   with a new request id per answer, as ours must (reported beside it).
// - Both servers are pinned to core 0 (`taskset -c 0`), the load generator
//   (autocannon, 50 connections, its own process) to core 1, so neither steals the
//   other's CPU. Each request is measured RUNS times for RUN_SECONDS, ours and the
//   references alternating, and the median of each side is reported: requests/s,
//   p50, p99, the ratios to the references, and the server's CPU time per request
//   (user + system from /proc/<pid>/stat over the requests answered), which stays
//   steady when other work on a shared machine makes requests/s swing. The target
//   is on CPU: the plain reference's µs per request over ours (its efficiency).
//
// Load goes to 127.0.0.1 only and every run is bounded in time.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/lib/project-root.js';

export const HOST = '127.0.0.1';
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const RUN_SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
export const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const WARMUP_SECONDS = 2;
const SERVER_CORE = process.env.BENCH_SERVER_CORE ?? '0';
const LOAD_CORE = process.env.BENCH_LOAD_CORE ?? '1';
const START_TIMEOUT_MS = 60_000;
/** After a load ends, until its closing connections and last log batch are handled. */
const SETTLE_MS = 100;
/** Linux reports process CPU time in clock ticks of 1/100 s (USER_HZ). */
const MICROSECONDS_PER_TICK = 10_000;

const root = projectRoot();
const AUTOCANNON = join(root, 'node_modules', 'autocannon', 'autocannon.js');
const BARE = join(root, '.test-build', 'scripts', 'bench', 'bare.js');
const PLAIN = join(root, '.test-build', 'scripts', 'bench', 'plain.js');
const PLAIN_POST = join(root, '.test-build', 'scripts', 'bench', 'plain-post.js');

export interface Server {
  name: string;
  origin: string;
  pid: number;
  /** Where its stdout goes (ours: the request log). */
  logFile: string;
  stop(): Promise<void>;
}

/** Builds dist/ so the entrypoints measured are those of this checkout. */
export function buildDist(): void {
  const built = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.json')], {
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('npm run build failed');
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export function benchDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/**
 * Starts `node <args>` pinned to the server core, stdout to `logFile`, and waits
 * until `origin + readyPath` answers. BENCH_NODE_ARGS (space-separated) go before
 * the script of our servers, not the bare ones: `--cpu-prof --cpu-prof-dir=DIR`
 * profiles ours under load without editing this file.
 */
export async function startPinned(options: {
  name: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  port: number;
  logFile: string;
  readyPath?: string;
  nodeArgs?: string[];
  /** taskset's CPU list for this server; default the server core (BENCH_SERVER_CORE). */
  cores?: string;
}): Promise<Server> {
  const out = openSync(options.logFile, 'a');
  const nodeArgs = options.nodeArgs ?? (process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []);
  const child = spawn('taskset', ['-c', options.cores ?? SERVER_CORE, process.execPath, ...nodeArgs, ...options.args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/', ...options.env },
    stdio: ['ignore', out, 'inherit'],
  });
  closeSync(out);
  const origin = `http://${HOST}:${options.port}`;
  const server: Server = {
    name: options.name,
    origin,
    pid: child.pid!,
    logFile: options.logFile,
    stop: () => stopChild(child),
  };
  const until = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${options.name} exited with ${child.exitCode} (log: ${options.logFile})`);
    // Any answer means it listens (the bare reference may be set to answer 304).
    const ok = await fetch(origin + (options.readyPath ?? '/healthz')).then(
      async (res) => (await res.arrayBuffer(), res.status < 500),
      () => false,
    );
    if (ok) return server;
    if (Date.now() > until) {
      await server.stop();
      throw new Error(`${options.name} did not answer within ${START_TIMEOUT_MS / 1000} s (log: ${options.logFile})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** An answer as the bare reference repeats it. */
export interface Answer {
  status: number;
  headers: Array<[string, string]>;
  body: Buffer;
  /** Serve this file (createReadStream per request) instead of `body`. */
  file?: string;
  /** The X-Request-Id it carried: the plain reference repeats it on every answer. */
  requestId?: string;
}

/** Headers Node writes by itself, or that differ per answer: the bare server makes its own. */
const NOT_REPEATED = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'x-request-id']);

/**
 * One GET of `origin + path` (a POST of `postBody` when given) with exactly `headers`, as the bare reference will
 * repeat it: the bytes as sent (node:http, not fetch, which asks for gzip by itself
 * and hands back the body decoded under its Content-Encoding header).
 */
export function captureAnswer(origin: string, path: string, headers: Record<string, string> = {}, postBody?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const method = postBody === undefined ? 'GET' : 'POST';
    const req = httpRequest(origin + path, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', reject);
      res.once('end', () => {
        const status = res.statusCode ?? 0;
        if (status !== 200 && status !== 304) return reject(new Error(`${path} answered ${status}`));
        const kept: Array<[string, string]> = [];
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined && !NOT_REPEATED.has(name)) kept.push([name, Array.isArray(value) ? value.join(', ') : value]);
        }
        const requestId = res.headers['x-request-id'];
        resolve({ status, headers: kept, body: Buffer.concat(chunks), requestId: typeof requestId === 'string' ? requestId : undefined });
      });
    });
    req.once('error', reject);
    req.end(postBody);
  });
}

/** A bare node:http server (bare.ts: a fresh header object and id per answer) answering `answer`, pinned like ours. */
export function startBare(name: string, answer: Answer, dir: string): Promise<Server> {
  return startReference(BARE, name, answer, dir);
}

/** The plain reference (plain.ts: one constant header object) answering `answer`, pinned like ours. */
export function startPlain(name: string, answer: Answer, dir: string): Promise<Server> {
  return startReference(PLAIN, name, answer, dir);
}

/** The plain reference of a POST (plain-post.ts: reads the body whole, then answers as plain.ts), pinned like ours. */
export function startPlainPost(name: string, answer: Answer, dir: string): Promise<Server> {
  return startReference(PLAIN_POST, name, answer, dir);
}

/** Both references of one answer. */
export async function startReferences(name: string, answer: Answer, dir: string): Promise<{ plain: Server; bare: Server; stop(): Promise<void> }> {
  const plain = await startPlain(`plain-${name}`, answer, dir);
  const bare = await startBare(`bare-${name}`, answer, dir).catch(async (error: unknown) => {
    await plain.stop();
    throw error;
  });
  return { plain, bare, stop: async () => void (await Promise.all([plain.stop(), bare.stop()])) };
}

async function startReference(script: string, name: string, answer: Answer, dir: string): Promise<Server> {
  const spec = join(dir, `${name}.answer.json`);
  await writeFile(
    spec,
    JSON.stringify({ status: answer.status, headers: answer.headers, body: answer.body.toString('base64'), file: answer.file, requestId: answer.requestId }),
  );
  const port = await freePort();
  return startPinned({
    name,
    args: [script, spec, String(port)],
    env: {},
    cwd: dir,
    port,
    logFile: join(dir, `${name}.out`),
    readyPath: '/',
    nodeArgs: [],
  });
}

export interface RunFigures {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Server CPU time (user + system) per request, µs. */
  cpuUs: number;
  /** Answers with another status than expected, plus errors and timeouts. */
  wrong: number;
}

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats?: Record<string, { count: number }>;
}

/** One autocannon run against `server`, in its own process pinned to the load core. */
export async function runLoad(server: Server, path: string, seconds: number, headers: Record<string, string>, expectedStatus: number): Promise<RunFigures> {
  const args = ['-c', LOAD_CORE, process.execPath, AUTOCANNON, '-c', String(CONNECTIONS), '-d', String(seconds), '-j'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  args.push(server.origin + path);
  const cpuBefore = cpuOf(server.pid);
  const { stdout } = await run('taskset', args);
  // The load's tail (its 50 connections closing, ours' last batch of log lines,
  // written within 10 ms) is work the run caused: let it finish before reading.
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const cpuUsed = cpuOf(server.pid) - cpuBefore;
  const result = JSON.parse(stdout) as AutocannonResult;
  const expected = result.statusCodeStats?.[String(expectedStatus)]?.count ?? 0;
  const answered = Object.values(result.statusCodeStats ?? {}).reduce((sum, stat) => sum + stat.count, 0);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: answered,
    cpuUs: answered > 0 ? cpuUsed / answered : NaN,
    wrong: answered - expected + result.errors + result.timeouts,
  };
}

function run(command: string, args: string[]): Promise<{ stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve({ stdout }) : reject(new Error(`${command} exited with ${code}: ${stderr}`))));
  });
}

/** User + system CPU time of a process so far, in microseconds (Linux /proc). */
export function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * MICROSECONDS_PER_TICK;
}

function linesIn(file: string, from: number): number {
  const text = readFileSync(file).subarray(from);
  let lines = 0;
  for (const byte of text) if (byte === 0x0a) lines++;
  return lines;
}

export interface Comparison {
  what: string;
  ours: RunFigures;
  /** The plain reference (plain.ts): the targets are set against it. */
  plain: RunFigures;
  /** The bare reference (bare.ts), when measured. */
  bare: RunFigures | undefined;
  /** Request log lines ours wrote per request answered over the measured runs. */
  logLinesPerRequest: number;
  /** Least CPU efficiency against plain (plain µs/req over ours); 0: none. */
  target: number;
  /** Plain's CPU per request over ours in each run (the two measured back to back), in run order. */
  runEfficiencies?: number[];
}

/**
 * Plain's CPU per request over ours: 1 is as cheap as the plain server, 0.85 costs
 * 1/0.85 of it. The median of the runs' own ratios, each of ours and plain measured
 * back to back, so that a slow stretch of the machine weighs on both sides of a ratio
 * rather than on one side's median only.
 */
export function cpuEfficiency(c: Comparison): number {
  const sorted = [...(c.runEfficiencies ?? [])].sort((a, b) => a - b);
  return sorted.length > 0 ? sorted[Math.floor(sorted.length / 2)]! : c.plain.cpuUs / c.ours.cpuUs;
}

/**
 * RUNS runs of RUN_SECONDS each for ours and the references, alternating so that
 * load from elsewhere on the machine hits all alike, after a warm-up of each; the
 * median of each figure per side.
 */
export async function compare(options: {
  what: string;
  ours: Server;
  plain: Server;
  bare?: Server;
  path: string;
  headers?: Record<string, string>;
  status?: number;
  target: number;
}): Promise<Comparison> {
  const headers = options.headers ?? {};
  const status = options.status ?? 200;
  const references = options.bare ? [options.plain, options.bare] : [options.plain];
  process.stderr.write(`measuring ${options.what}: ${machineLoad()} before\n`);
  await runLoad(options.ours, options.path, WARMUP_SECONDS, headers, status);
  // The references ignore the target; they get ours so that every side parses the same request.
  for (const server of references) await runLoad(server, options.path, WARMUP_SECONDS, headers, status);
  const ours: RunFigures[] = [];
  const measured = references.map(() => [] as RunFigures[]);
  const logStart = statSync(options.ours.logFile).size;
  for (let i = 0; i < RUNS; i++) {
    ours.push(await runLoad(options.ours, options.path, RUN_SECONDS, headers, status));
    for (const [index, server] of references.entries()) measured[index]!.push(await runLoad(server, options.path, RUN_SECONDS, headers, status));
  }
  // The log is batched for a few ms: let the last lines land before counting.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const answered = ours.reduce((sum, figures) => sum + figures.requests, 0);
  const wrong = [...ours, ...measured.flat()].reduce((sum, figures) => sum + figures.wrong, 0);
  if (wrong > 0) throw new Error(`${options.what}: ${wrong} answers were not ${status} (or failed)`);
  return {
    what: options.what,
    ours: medianFigures(ours),
    plain: medianFigures(measured[0]!),
    bare: measured[1] ? medianFigures(measured[1]) : undefined,
    logLinesPerRequest: linesIn(options.ours.logFile, logStart) / answered,
    target: options.target,
    runEfficiencies: ours.map((figures, index) => measured[0]![index]!.cpuUs / figures.cpuUs),
  };
}

function medianFigures(runs: RunFigures[]): RunFigures {
  const median = (pick: (figures: RunFigures) => number) => {
    const sorted = runs.map(pick).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  };
  return {
    rps: median((f) => f.rps),
    p50: median((f) => f.p50),
    p99: median((f) => f.p99),
    requests: median((f) => f.requests),
    cpuUs: median((f) => f.cpuUs),
    wrong: 0,
  };
}

/** How busy the machine was, for the record: a benchmark on a busy machine says little. */
export function machineLoad(): string {
  const [one, five] = loadavg();
  return `load average ${one!.toFixed(2)} (1 min), ${five!.toFixed(2)} (5 min) on ${spawnSync('nproc').stdout?.toString().trim() ?? '?'} cores`;
}

export function printComparisons(title: string, comparisons: Comparison[]): void {
  const header = [
    'request', 'req/s ours / plain / bare', 'req/s ratio to plain / bare', 'p99 ms ours / plain / bare',
    'server CPU µs/req ours / plain / bare', 'CPU efficiency vs plain / bare', 'per run vs plain', 'target (CPU vs plain)', 'log lines/req',
  ];
  const both = (c: Comparison, pick: (figures: RunFigures) => string) => [c.ours, c.plain, c.bare].map((f) => (f ? pick(f) : '-')).join(' / ');
  const rows = comparisons.map((c) => {
    const efficiency = cpuEfficiency(c);
    return [
      c.what,
      both(c, (f) => f.rps.toFixed(0)),
      `${(c.ours.rps / c.plain.rps).toFixed(2)}× / ${c.bare ? (c.ours.rps / c.bare.rps).toFixed(2) + '×' : '-'}`,
      both(c, (f) => String(f.p99)),
      both(c, (f) => f.cpuUs.toFixed(1)),
      `${efficiency.toFixed(2)}× / ${c.bare ? (c.bare.cpuUs / c.ours.cpuUs).toFixed(2) + '×' : '-'}`,
      (c.runEfficiencies ?? []).map((ratio) => ratio.toFixed(2)).join(', '),
      c.target ? `${c.target}× ${efficiency >= c.target ? 'met' : 'MISSED'}` : '',
      c.logLinesPerRequest.toFixed(2),
    ];
  });
  const line = (cells: string[]) => '| ' + cells.join(' | ') + ' |';
  process.stdout.write(
    `\n${title}\nserver on core ${SERVER_CORE}, autocannon on core ${LOAD_CORE}, ${CONNECTIONS} connections, ` +
      `median of ${RUNS} runs of ${RUN_SECONDS} s after a ${WARMUP_SECONDS} s warm-up; ${machineLoad()} at the end\n` +
      `CPU efficiency: the reference's server CPU per request over ours (1.00× costs what it costs); ` +
      `vs plain, the median of each run's own ratio (ours and plain back to back)\n\n` +
      [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n') +
      '\n',
  );
}
