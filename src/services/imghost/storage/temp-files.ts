import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../../../lib/log.js';

// Files being written (uploads, conversions) live in one temp folder that several
// image host processes may share. A name says who writes it:
//
//   <host>_<pid>_<start>_<random>.<ext>
//
// `start` is the process's start time as the kernel counts it (/proc/<pid>/stat),
// so a pid reused after a crash (pid 1 in every container restart) does not make a
// dead writer's file look alive. At start-up a file is removed only when its writer
// is provably gone: same host and its pid is not running, or running with another
// start time. A file of another host (a shared network folder) cannot be checked
// that way; it is removed once older than STALE_TEMP_MS, far beyond the longest a
// live write can last (a 5-minute request plus a 1-minute conversion).

/** Age after which a temp file we cannot attribute to a live process is an orphan. */
export const STALE_TEMP_MS = 60 * 60 * 1000;
/** How long shutdown waits for requests being cut off to remove their own temp files. */
export const TEMP_RELEASE_WAIT_MS = 2_000;

export interface TempOwner {
  host: string;
  pid: number;
  /** Kernel start time of the process, or "" where /proc is not available. */
  start: string;
}

const NAME = /^([A-Za-z0-9.-]{1,64})_(\d{1,10})_(\d{0,20})_[0-9a-f]{16}\.[a-z]{1,8}$/;

/** The host name as it can appear in a file name. */
const safeHost = (name: string) => name.replace(/[^A-Za-z0-9.-]/g, '-').slice(0, 64) || 'host';

/** Field 22 of /proc/<pid>/stat; the command name before it may hold spaces and parentheses. */
export function processStart(pid: number | 'self'): string | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

export function currentOwner(): TempOwner {
  return { host: safeHost(hostname()), pid: process.pid, start: processStart('self') ?? '' };
}

export function tempName(owner: TempOwner, ext: string): string {
  return `${owner.host}_${owner.pid}_${owner.start}_${randomBytes(8).toString('hex')}.${ext}`;
}

export function ownerOf(name: string): TempOwner | null {
  const match = NAME.exec(name);
  return match ? { host: match[1]!, pid: Number(match[2]), start: match[3]! } : null;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * True when nothing can still be writing the file. `writer` is null for a name not
 * in our format (an older version's, or a stray file): only its age can tell.
 */
export function isOrphan(writer: TempOwner | null, mtimeMs: number, self: TempOwner, now = Date.now()): boolean {
  if (writer === null || writer.host !== self.host) return now - mtimeMs > STALE_TEMP_MS;
  if (writer.pid === self.pid) return writer.start !== self.start;
  if (!isRunning(writer.pid)) return true;
  // Running: the same process only if its start time matches (unknowable without /proc).
  const start = processStart(writer.pid);
  return start !== null && writer.start !== '' && start !== writer.start;
}

/**
 * The temp folder as one process sees it: names for new files, the set of files
 * this process is writing, and the start-up sweep of what crashed writers left.
 */
export function createTempArea(dir: string, log: Logger, owner: TempOwner = currentOwner()) {
  const live = new Set<string>();

  return {
    dir,

    /** A fresh path, remembered until committed or discarded; create it with flag 'wx'. */
    create(ext: string): string {
      const path = join(dir, tempName(owner, ext));
      live.add(path);
      return path;
    },

    /** The file was renamed into place: nothing to clean up any more. */
    committed(path: string): void {
      live.delete(path);
    },

    async discard(path: string): Promise<void> {
      await rm(path, { force: true });
      live.delete(path);
    },

    /** Start-up: removes every file whose writer is provably gone. */
    async sweepOrphans(): Promise<void> {
      let removed = 0;
      for (const name of await readdir(dir)) {
        const path = join(dir, name);
        const info = await stat(path).catch(() => null);
        if (info && isOrphan(ownerOf(name), info.mtimeMs, owner)) {
          await rm(path, { force: true, recursive: true });
          removed++;
        }
      }
      if (removed > 0) log.info('removed temp files of writers that are gone', { removed });
    },

    /**
     * Shutdown, after the server stopped: requests cut off remove their own files;
     * give them a moment, then remove whatever this process still holds, so a stop
     * never leaves a file behind.
     */
    async close(): Promise<void> {
      const until = Date.now() + TEMP_RELEASE_WAIT_MS;
      while (live.size > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
      for (const path of [...live]) await this.discard(path);
    },
  };
}

export type TempArea = ReturnType<typeof createTempArea>;
