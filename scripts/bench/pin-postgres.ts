// Pins a PostgreSQL that runs on this machine to the given cores: its postmaster,
// so every backend it starts from now on, and the processes it has started so far.
//
// Why: left unpinned, the scheduler woke the backend a site process had just
// written a query to on the site's own core (a wake-up on the waker's core), where
// it preempted the site: profiled, 25 µs of every update check answer was spent
// "in" postgres.js's socket write, and the benchmark measured PostgreSQL's CPU on
// the server core as the server's latency. With PostgreSQL beside the load
// generator, the server core runs the server only (history of docs/benchmarks.md).
// BENCH_PG_NICE also sets its scheduling priority (see pinPostgres).

import { readdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/**
 * `backendPid` is the pid of one backend (`select pg_backend_pid()`); its parent is
 * the postmaster. Returns what was done, for the benchmark's output; a PostgreSQL
 * on another machine (no such process here) is left as it is.
 */
export function pinPostgres(backendPid: number, cores: string, nice = process.env.BENCH_PG_NICE): string {
  const postmaster = parentOf(backendPid);
  if (postmaster === undefined || postmaster <= 1) return 'PostgreSQL not pinned (its processes are not on this machine)';
  const pids = [postmaster];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (Number.isInteger(pid) && parentOf(pid) === postmaster) pids.push(pid);
  }
  const failed = pids.filter((pid) => spawnSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' }).status !== 0);
  if (failed.length === pids.length) return 'PostgreSQL not pinned (taskset refused)';
  // BENCH_PG_NICE (say -10): PostgreSQL ahead of the load generator on their shared
  // core, as a database on its own machine would be; backends inherit it from the postmaster.
  const reniced = nice !== undefined && nice !== '' && spawnSync('renice', ['-n', nice, '-p', ...pids.map(String)], { stdio: 'ignore' }).status === 0;
  return `PostgreSQL (postmaster ${postmaster} and its ${pids.length - 1} processes${failed.length > 0 ? `, ${failed.length} gone meanwhile` : ''}) pinned to core ${cores}${reniced ? `, nice ${nice}` : ''}`;
}
