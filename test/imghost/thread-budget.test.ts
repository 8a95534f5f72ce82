// libuv thread pool: sharp's decodes must leave threads for file I/O, the deployment
// files must size the pool and the memory limit for the decodes they allow.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  IO_RESERVED_THREADS,
  MAX_CONCURRENT_PNG_RENDERS,
  libuvPoolSize,
  MAX_DECODE_CONCURRENCY,
  memoryLimitMb,
  threadBudget,
} from '../../src/services/imghost/thread-budget.js';
import { startImghostProcess } from '../helpers/imghost-process.js';
import { tempDir } from '../helpers/servers.js';

const Budget = suite('libuv thread pool budget');
const root = fileURLToPath(new URL('../../../', import.meta.url));

Budget('libuvPoolSize reads UV_THREADPOOL_SIZE as libuv does', () => {
  const rows = [
    { what: 'unset: libuv default', value: undefined, size: 4 },
    { what: 'a number', value: '12', size: 12 },
    { what: 'zero: at least one thread', value: '0', size: 1 },
    { what: 'not a number: default', value: 'many', size: 4 },
    { what: 'over the ceiling', value: '5000', size: 1024 },
  ];
  for (const row of rows) assert.is(libuvPoolSize({ UV_THREADPOOL_SIZE: row.value }), row.size, row.what);
});

Budget('libuv thread pool: decodes never take the threads kept for file I/O and icon renders', () => {
  const rows = [
    { what: 'default pool on 4 cores (two previews stalled an icon)', pool: 4, cores: 4, decodes: 1 },
    { what: 'default pool on 1 core', pool: 4, cores: 1, decodes: 1 },
    { what: 'deployed pool on 4 cores', pool: 8, cores: 4, decodes: 4 },
    { what: 'deployed pool (systemd, 12) on 2 cores', pool: 12, cores: 2, decodes: 2 },
    { what: 'big host: capped for memory', pool: 64, cores: 32, decodes: MAX_DECODE_CONCURRENCY },
    { what: 'a one-thread pool still decodes', pool: 1, cores: 8, decodes: 1 },
  ];
  for (const row of rows) assert.is(threadBudget(row.pool, row.cores).decodeConcurrency, row.decodes, row.what);

  for (let pool = 1; pool <= 32; pool++) {
    for (const cores of [1, 2, 3, 4, 8, 16, 64]) {
      const budget = threadBudget(pool, cores);
      const label = `pool ${pool}, ${cores} cores`;
      assert.ok(budget.decodeConcurrency >= 1 && budget.decodeConcurrency <= Math.min(cores, MAX_DECODE_CONCURRENCY), label);
      if (pool > IO_RESERVED_THREADS + MAX_CONCURRENT_PNG_RENDERS) {
        assert.ok(budget.decodeConcurrency + MAX_CONCURRENT_PNG_RENDERS + IO_RESERVED_THREADS <= pool, `${label}: I/O threads taken`);
      }
      if (pool >= budget.recommendedPoolSize) assert.is(budget.decodeConcurrency, budget.wantedDecodes, `${label}: recommended pool too small`);
    }
  }
});

Budget('libuv thread pool: pm2 sizes the pool and memory limit for the decodes of this host', () => {
  const require = createRequire(import.meta.url);
  const ecosystem = require(root + 'scripts/deploy/ecosystem.config.cjs') as { apps: Array<Record<string, any>> };
  const imghost = ecosystem.apps.find((app) => app.name === 'launcher-imghost')!;
  const budget = threadBudget(4, availableParallelism());
  assert.is(imghost.env.UV_THREADPOOL_SIZE, String(budget.recommendedPoolSize));
  assert.is(imghost.max_memory_restart, `${memoryLimitMb(budget.wantedDecodes)}M`);
  assert.is(threadBudget(Number(imghost.env.UV_THREADPOOL_SIZE)).decodeConcurrency, budget.wantedDecodes);
});

Budget('libuv thread pool: the systemd unit sizes the pool for the largest decode count', () => {
  const unit = readFileSync(root + 'scripts/deploy/launcher-imghost.service', 'utf8');
  const size = Number(/^Environment=UV_THREADPOOL_SIZE=(\d+)$/m.exec(unit)?.[1]);
  assert.is(size, threadBudget(4, 1024).recommendedPoolSize);
});

Budget('libuv thread pool: the running image host fits its decodes into the pool it got, and says so', async () => {
  const budget = threadBudget(1);
  for (const row of [
    { what: 'a one-thread pool', pool: '1', capped: budget.wantedDecodes > 1 },
    { what: 'the recommended pool', pool: String(budget.recommendedPoolSize), capped: false },
  ]) {
    const host = await startImghostProcess(tempDir('lw-pool-'), { UV_THREADPOOL_SIZE: row.pool });
    const said = /decodes capped[^\n]*"decodes":(\d+)/.exec(host.output());
    host.child.kill('SIGKILL');
    await host.exited;
    assert.is(said !== null, row.capped, row.what);
    if (said) assert.is(Number(said[1]), 1, row.what);
  }
});

// npm start's preload (src/thread-pool.cts), as package.json runs it.
const PRELOAD = fileURLToPath(new URL('../../src/thread-pool.cjs', import.meta.url));
/** The pool size a process ends with, and its thread count once the pool has started. */
function poolOf(env: Record<string, string>, nodeArgs: string[]): { size: string | undefined; threads: number } {
  const program = `require('fs').readFile(__filename, () => console.log(JSON.stringify({ size: process.env.UV_THREADPOOL_SIZE, threads: require('fs').readdirSync('/proc/self/task').length })))`;
  const { UV_THREADPOOL_SIZE: _, ...rest } = process.env;
  return JSON.parse(execFileSync(process.execPath, [...nodeArgs, '-e', program], { env: { ...rest, ...env }, encoding: 'utf8' }));
}

Budget('libuv thread pool: npm start sizes the pool of its own process as the image host recommends, before its first use', () => {
  const pkg = JSON.parse(readFileSync(root + 'package.json', 'utf8')) as { scripts: Record<string, string> };
  assert.is(pkg.scripts.start, 'node --require ./dist/thread-pool.cjs dist/dev.js');
  const recommended = threadBudget(4, availableParallelism()).recommendedPoolSize;
  const sized = poolOf({}, ['--require', PRELOAD]);
  assert.is(sized.size, String(recommended));
  // The threads are really there: libuv starts the whole pool at its first use.
  if (process.platform === 'linux') assert.is(sized.threads - poolOf({ UV_THREADPOOL_SIZE: '4' }, []).threads, recommended - 4);
  assert.is(poolOf({ UV_THREADPOOL_SIZE: '3' }, ['--require', PRELOAD]).size, '3', 'a size in the environment wins');
});

Budget('libuv thread pool: with npm start\'s preload and no UV_THREADPOOL_SIZE, the image host gives every wanted decode a thread and advises nothing', async () => {
  const host = await startImghostProcess(tempDir('lw-pool-'), { UV_THREADPOOL_SIZE: '' }, ['--require', PRELOAD]);
  host.child.kill('SIGKILL');
  await host.exited;
  assert.not.match(host.output(), /UV_THREADPOOL_SIZE/);
});

Budget.run();
