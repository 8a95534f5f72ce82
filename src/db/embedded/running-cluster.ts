import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// `npm start` keeps the embedded PostgreSQL running while it serves; a second
// command on the same data folder (`npm run user -- add`, `npm run migrate`,
// `npm run seed`) should use that server rather than fail to start another on
// the same cluster. PostgreSQL writes who runs a cluster into postmaster.pid:
// line 1 the postmaster's pid, line 4 its port, line 8 its status.

export interface RunningCluster {
  pid: number;
  port: number;
}

/** The postmaster serving `dir` right now, when there is one that accepts connections. */
export function runningCluster(dir: string): RunningCluster | undefined {
  let lines: string[];
  try {
    lines = readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  const status = lines[7]?.trim();
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0 || port > 65535) return undefined;
  // "ready" once it accepts connections; a file left by a crash names a dead pid.
  if (status !== 'ready' || !isAlive(pid)) return undefined;
  return { pid, port };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, but another user's (the postgres user's, when we are not root).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
