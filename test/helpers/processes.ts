// Which processes are still running, read from /proc (Linux): tests assert that
// nothing they started (a postmaster, an initdb) outlives them.
import { readdirSync, readFileSync } from 'node:fs';

/** Pids whose command line contains `text` (a cluster folder, say). */
export function processesMentioning(text: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const commandLine = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (commandLine.includes(text) && !isZombie(name)) found.push(Number(name));
    } catch {
      // Exited meanwhile.
    }
  }
  return found;
}

function isZombie(pid: string): boolean {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

/** Polls until no process mentions `text`, or the time is up; returns what is left. */
export async function waitUntilNoneMention(text: string, timeoutMs = 10_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = processesMentioning(text);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
