// One request against our built service and the plain reference served AT THE SAME
// TIME (both pinned to the server core, one autocannon each on the load core), so
// that whatever else runs on a shared machine hits both in the same windows; and,
// with BENCH_BASE_ROOT, a second built checkout (e.g. main before a change) beside
// them. bench-site and bench-imghost run the sides one after the other: on a busy
// machine their CPU-per-request ratios swing with the load of each 8 s window.
// Each side gets a share of the core, so absolute figures are not those of a
// server alone; compare the efficiencies (plain's CPU per request over ours).
//
//   npx tsc -p test/tsconfig.json
//   node .test-build/scripts/bench-paired.js site /api/info
//   node .test-build/scripts/bench-paired.js imghost '/SF/home?color=red'
//   BENCH_BASE_ROOT=/path/to/other/checkout node .test-build/scripts/bench-paired.js site /api/info
//
// BENCH_SECONDS (8) and BENCH_RUNS (default here 5) as for the other benchmarks.

import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../src/lib/project-root.js';
import { benchDir, buildDist, captureAnswer, freePort, machineLoad, runLoad, startPinned, type RunFigures, type Server } from './bench/harness.js';

const root = projectRoot();
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

async function startService(which: 'site' | 'imghost', checkout: string, tag: string, dir: string): Promise<Server> {
  const port = await freePort();
  const env: Record<string, string> =
    which === 'site'
      ? {
          HOST: '127.0.0.1',
          SITE_PORT: String(port),
          // bench-site's embedded PostgreSQL for ours; the other checkout its own (a database
          // migrated by a newer chain is refused by an older one).
          DATA_DIR: join(tmpdir(), tag === 'ours' ? 'launcher-web-bench' : `launcher-web-bench-${tag}`),
          LAUNCHER_CONFIG: join(checkout, 'config', 'launcher.example.json'),
          LOG_LEVEL: 'info',
          ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
        }
      : { DATA_DIR: join(dir, `imghost-${tag}`), HOST: '127.0.0.1', IMGHOST_PORT: String(port), LOG_LEVEL: 'info' };
  return startPinned({ name: tag, args: [join(checkout, 'dist', `${which}.js`)], cwd: dir, port, logFile: join(dir, `${tag}.log`), env });
}

async function main(): Promise<void> {
  const which = process.argv[2] === 'imghost' ? 'imghost' : 'site';
  const path = process.argv[3] ?? (which === 'site' ? '/api/info' : '/SF/home?color=red');
  // BENCH_SKIP_BUILD=1 measures the dist/ already built.
  if (process.env.BENCH_SKIP_BUILD !== '1') buildDist();
  const dir = await benchDir('bench-paired-');
  const servers: Server[] = [];
  try {
    const ours = await startService(which, root, 'ours', dir);
    servers.push(ours);
    const baseRoot = process.env.BENCH_BASE_ROOT;
    const base = baseRoot ? await startService(which, baseRoot, 'base', dir) : undefined;
    if (base) servers.push(base);
    const answer = await captureAnswer(ours.origin, path);
    const spec = join(dir, 'plain.answer.json');
    await writeFile(spec, JSON.stringify({ status: answer.status, headers: answer.headers, body: answer.body.toString('base64'), requestId: answer.requestId }));
    const plainPort = await freePort();
    const plain = await startPinned({
      name: 'plain',
      args: [join(root, '.test-build', 'scripts', 'bench', 'plain.js'), spec, String(plainPort)],
      env: {},
      cwd: dir,
      port: plainPort,
      logFile: join(dir, 'plain.out'),
      readyPath: '/',
      nodeArgs: [],
    });
    servers.push(plain);
    const sides: Array<[string, Server, string]> = [['ours', ours, path], ...(base ? [['base', base, path] as [string, Server, string]] : []), ['plain', plain, path]];
    const round = (seconds: number) => Promise.all(sides.map(([, server, target]) => runLoad(server, target, seconds, {}, answer.status)));
    process.stderr.write(`measuring ${which} ${path}: ${machineLoad()} before\n`);
    await round(2);
    const rounds: RunFigures[][] = [];
    for (let i = 0; i < RUNS; i++) rounds.push(await round(SECONDS));
    const plainAt = sides.length - 1;
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    process.stdout.write(`\n${which} GET ${path}, sides served at the same time; ${RUNS} runs of ${SECONDS} s; ${machineLoad()} at the end\n\n`);
    process.stdout.write('| side | CPU µs/req (median) | CPU efficiency vs plain (median of the runs) | req/s | p99 ms |\n| --- | --- | --- | --- | --- |\n');
    sides.forEach(([name], index) => {
      const cpu = median(rounds.map((figures) => figures[index]!.cpuUs));
      const efficiency = median(rounds.map((figures) => figures[plainAt]!.cpuUs / figures[index]!.cpuUs));
      const rps = median(rounds.map((figures) => figures[index]!.rps));
      const p99 = median(rounds.map((figures) => figures[index]!.p99));
      process.stdout.write(`| ${name} | ${cpu.toFixed(1)} | ${efficiency.toFixed(2)}× | ${rps.toFixed(0)} | ${p99} |\n`);
    });
    // Each run's figures too: how far apart the runs are says how much the medians can be trusted.
    process.stdout.write('\nper run, CPU µs/req (efficiency vs plain):\n');
    sides.forEach(([name], index) => {
      const runs = rounds.map((figures) => `${figures[index]!.cpuUs.toFixed(1)} (${(figures[plainAt]!.cpuUs / figures[index]!.cpuUs).toFixed(2)}×)`);
      process.stdout.write(`  ${name}: ${runs.join(', ')}\n`);
    });
  } finally {
    for (const server of servers.reverse()) await server.stop();
  }
}

await main();
