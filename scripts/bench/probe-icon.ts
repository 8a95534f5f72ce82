// Diagnostic of the image host's hot path against the plain reference: why their
// CPU-per-request ratio swings from run to run (the history of docs/benchmarks.md, 26 Nov
// 2026, 09:50-11:00 UTC). Ours (dist/imghost.js, its request log to a file) and
// plain.ts answering our bytes, both pinned to core 0, autocannon on core 1, as
// in bench-imghost; per run and side it prints the CPU per request (user and
// system), minor page faults, req/s, p99, voluntary and involuntary context
// switches per request, CPU per thread (/proc/<pid>/task/*/stat), GC lines (with
// --trace-gc in BENCH_NODE_ARGS / PLAIN_NODE_ARGS: counted in the server's
// stdout), RSS, and both cores' busy share and steal (/proc/stat).
//
//   node .test-build/scripts/bench/probe-icon.js ['/SF/home?color=red']
//
// Sides are measured one after the other in windows of BENCH_SECONDS (8), BENCH_RUNS
// (6) times, unless: PROBE_PAIRED=1 serves them all at the same time (one autocannon
// each); PROBE_SLICED=1 takes turns of PROBE_SLICE_SECONDS (2) within each run.
// PROBE_AA=1 adds a second image host and a second plain (A/A: what the method reads
// between two identical servers); PROBE_BASE=name=/checkout,... adds image hosts
// built in other checkouts; PROBE_NOLOG=1 adds one with LOG_LEVEL=warn (no request
// log); PROBE_LOG_LEVEL sets ours'.

import { readFileSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { projectRoot } from '../../src/lib/project-root.js';
import { benchDir, captureAnswer, freePort, machineLoad, runLoad, startPinned, type RunFigures, type Server } from './harness.js';

const root = projectRoot();
const RUNS = Number(process.env.BENCH_RUNS ?? 6);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const path = process.argv[2] ?? '/SF/home?color=red';

function threads(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
      const f = text.slice(text.lastIndexOf(') ') + 2).split(' ');
      const key = `${name}#${tid}`;
      out.set(key, (out.get(key) ?? 0) + (Number(f[11]) + Number(f[12])) * 10);
    } catch {}
  }
  return out;
}
function userSys(pid: number): [number, number, number] {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return [Number(f[11]) * 10_000, Number(f[12]) * 10_000, Number(f[7])];
}
function ctx(pid: number): [number, number] {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  return [Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(s)![1]), Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(s)![1])];
}
function cores(): number[][] {
  return readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .filter((l) => /^cpu\d/.test(l))
    .map((l) => l.split(/\s+/).slice(1).map(Number));
}
function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
}
function countGc(file: string): number {
  try {
    return (readFileSync(file, 'utf8').match(/ms: (Scavenge|Mark-Compact|Mark-Sweep|Minor)/g) ?? []).length;
  } catch {
    return 0;
  }
}

async function measure(server: Server, status: number) {
  const t0 = threads(server.pid);
  const c0 = ctx(server.pid);
  const us0 = userSys(server.pid);
  const k0 = cores();
  const g0 = countGc(server.logFile);
  const fig = await runLoad(server, path, SECONDS, {}, status);
  const t1 = threads(server.pid);
  const c1 = ctx(server.pid);
  const us1 = userSys(server.pid);
  const k1 = cores();
  const g1 = countGc(server.logFile);
  const per = (n: number) => (n / fig.requests).toFixed(3);
  const th: string[] = [];
  for (const [name, ms] of t1) {
    const d = ms - (t0.get(name) ?? 0);
    if (d > 0) th.push(`${name}:${d}ms`);
  }
  const busy = k1.map((row, i) => {
    const d = row.map((v, j) => v - k0[i]![j]!);
    const total = d.reduce((a, b) => a + b, 0);
    return `core${i} busy ${(((total - d[3]! - d[4]!) / total) * 100).toFixed(0)}% steal ${d[7]} irq+soft ${d[5]! + d[6]!}`;
  });
  return `${server.name.padEnd(6)} ${fig.cpuUs.toFixed(1)} µs (user ${((us1[0] - us0[0]) / fig.requests).toFixed(1)} sys ${((us1[1] - us0[1]) / fig.requests).toFixed(1)} minflt/req ${((us1[2] - us0[2]) / fig.requests).toFixed(3)}) ${fig.rps.toFixed(0)} req/s p99 ${fig.p99} vcs/req ${per(c1[0] - c0[0])} ivcs/req ${per(c1[1] - c0[1])} gc ${g1 - g0} rss ${rssKb(server.pid)}kB | ${th.join(' ')} | ${busy.join('; ')}`;
}

/** One run of `seconds` per server in turns of PROBE_SLICE_SECONDS (order reversed every other turn): CPU per request and req/s over the slices. */
async function runInSlices(servers: Server[], seconds: number, status: number): Promise<Array<{ cpuUs: number; rps: number }>> {
  const slices = Math.max(1, Math.round(seconds / Number(process.env.PROBE_SLICE_SECONDS ?? 2)));
  const taken = servers.map(() => [] as RunFigures[]);
  for (let slice = 0; slice < slices; slice++) {
    const order = servers.map((_, index) => index);
    if (slice % 2 === 1) order.reverse();
    for (const index of order) taken[index]!.push(await runLoad(servers[index]!, path, seconds / slices, {}, status));
  }
  return taken.map((figures) => {
    const requests = figures.reduce((sum, f) => sum + f.requests, 0);
    return { cpuUs: figures.reduce((sum, f) => sum + f.cpuUs * f.requests, 0) / requests, rps: figures.reduce((sum, f) => sum + f.rps, 0) / figures.length };
  });
}

async function main() {
  const dir = await benchDir('probe-icon-');
  const servers: Server[] = [];
  try {
    const startOurs = async (name: string, checkout = root, logLevel = process.env.PROBE_LOG_LEVEL ?? 'info') => {
      const port = await freePort();
      return startPinned({
        name,
        args: [join(checkout, 'dist', 'imghost.js')],
        cwd: dir,
        port,
        logFile: join(dir, `${name}.log`),
        env: { DATA_DIR: join(dir, `data-${name}`), HOST: '127.0.0.1', IMGHOST_PORT: String(port), LOG_LEVEL: logLevel },
      });
    };
    const ours = await startOurs('ours');
    servers.push(ours);
    const answer = await captureAnswer(ours.origin, path);
    const spec = join(dir, 'plain.answer.json');
    await writeFile(spec, JSON.stringify({ status: answer.status, headers: answer.headers, body: answer.body.toString('base64'), requestId: answer.requestId }));
    const startPlain = async (name: string) => {
      const pport = await freePort();
      return startPinned({
        name,
        args: [join(root, '.test-build', 'scripts', 'bench', 'plain.js'), spec, String(pport)],
        env: {},
        cwd: dir,
        port: pport,
        logFile: join(dir, `${name}.out`),
        readyPath: '/',
        nodeArgs: (process.env.PLAIN_NODE_ARGS ?? '').split(' ').filter(Boolean),
      });
    };
    const plain = await startPlain('plain');
    servers.push(plain);
    const sides = [ours, plain];
    if (process.env.PROBE_AA === '1') {
      sides.push(await startOurs('ours2'), await startPlain('plain2'));
      servers.push(sides[2]!, sides[3]!);
    }
    for (const entry of (process.env.PROBE_BASE ?? '').split(',').filter(Boolean)) {
      const [name, checkout] = entry.includes('=') ? entry.split('=') as [string, string] : ['base', entry];
      sides.push(await startOurs(name, checkout));
      servers.push(sides.at(-1)!);
    }
    if (process.env.PROBE_NOLOG === '1') {
      sides.push(await startOurs('nolog', root, 'warn'));
      servers.push(sides.at(-1)!);
    }
    console.log(`${path}: ${machineLoad()} before`);
    for (const side of sides) await runLoad(side, path, 2, {}, answer.status);
    for (let i = 0; i < RUNS; i++) {
      if (process.env.PROBE_SLICED === '1') {
        const runs = await runInSlices(sides, SECONDS, answer.status);
        console.log(runs.map((f, index) => `${sides[index]!.name} ${f.cpuUs.toFixed(1)} µs ${f.rps.toFixed(0)} req/s`).join(' | '));
      } else if (process.env.PROBE_PAIRED === '1') for (const line of await Promise.all(sides.map((side) => measure(side, answer.status)))) console.log(line);
      else for (const side of sides) console.log(await measure(side, answer.status));
    }
    console.log(`${machineLoad()} after`);
  } finally {
    for (const s of servers.reverse()) await s.stop();
  }
}
await main();
