import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Logger } from '../../../lib/log.js';
import { createSingleFlight } from '../../../lib/single-flight.js';
import { syncFile } from './durable.js';
import { createTempArea } from './temp-files.js';

// Hot objects of the bucket on local disk ($DATA_DIR/cache), under the same names
// they have in the bucket (less the prefix), bounded by STORAGE_CACHE_MAX_BYTES and
// evicted least recently used first. Objects are content-addressed and never change,
// so a cached copy never needs invalidating. A file appears under its name only by
// rename from .tmp after an fsync, and only once it holds every byte of the object:
// a reader never sees part of one, even after a crash or a power cut.

const TEMP_DIR = '.tmp';

export type ObjectCache = Awaited<ReturnType<typeof openObjectCache>>;

export async function openObjectCache(dir: string, maxBytes: number, log: Logger) {
  const temps = createTempArea(join(dir, TEMP_DIR), log);
  await mkdir(temps.dir, { recursive: true });
  await temps.sweepOrphans();
  /** key -> bytes; a Map keeps insertion order, so its first key is the least recently used. */
  const entries = new Map<string, number>();
  let total = 0;
  /** Evicted files still being deleted, by key. */
  const removing = new Map<string, Promise<void>>();
  const singleFlight = createSingleFlight<string | null>();
  const pathOf = (key: string) => join(dir, key);

  function add(key: string, bytes: number): void {
    const known = entries.get(key);
    if (known !== undefined) total -= known;
    entries.delete(key);
    entries.set(key, bytes);
    total += bytes;
    for (const [oldest, size] of entries) {
      if (total <= maxBytes) break;
      entries.delete(oldest);
      total -= size;
      // A reader that opened the file keeps reading it: unlinking does not cut it off.
      // A fill of the same key waits for this (moveIn), or it would delete the new file.
      const removal: Promise<void> = rm(pathOf(oldest), { force: true })
        .catch((error: unknown) => log.warn('cache eviction failed', { err: error }))
        .finally(() => {
          if (removing.get(oldest) === removal) removing.delete(oldest);
        });
      removing.set(oldest, removal);
    }
  }

  // What a previous run left, oldest first, so its recently written files are kept.
  const found: { key: string; size: number; mtimeMs: number }[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const key = relative(dir, path).split(sep).join('/');
    if (key.startsWith(`${TEMP_DIR}/`)) continue;
    const info = await stat(path).catch(() => null);
    if (info) found.push({ key, size: info.size, mtimeMs: info.mtimeMs });
  }
  found.sort((a, b) => a.mtimeMs - b.mtimeMs);
  for (const file of found) add(file.key, file.size);

  async function moveIn(key: string, temp: string, size: number): Promise<string> {
    const path = pathOf(key);
    await syncFile(temp);
    await mkdir(dirname(path), { recursive: true });
    await removing.get(key);
    await rename(temp, path);
    add(key, size);
    return path;
  }

  return {
    dir,
    maxBytes,
    get bytes() {
      return total;
    },
    get entries() {
      return entries.size;
    },

    /** Whether an object of this size may be kept at all. */
    admits: (size: number) => size > 0 && size <= maxBytes,

    /** The cached file's path, marked as just used; null when it is not cached. */
    lookup(key: string): string | null {
      const bytes = entries.get(key);
      if (bytes === undefined) return null;
      entries.delete(key);
      entries.set(key, bytes);
      return pathOf(key);
    },

    /** The size of a cached object, without touching its place in the order. */
    sizeOf: (key: string): number | undefined => entries.get(key),

    /** The file went away under us (deleted by hand): stop counting it. */
    forget(key: string): void {
      const bytes = entries.get(key);
      if (bytes === undefined) return;
      entries.delete(key);
      total -= bytes;
    },

    /**
     * Fills the cache with `key`: `write` writes the whole object to the temp path
     * it is given and resolves with its size, or with null when there is no such
     * object. Concurrent fills of one key share one write. Any failure leaves nothing.
     */
    fill(key: string, write: (temp: string) => Promise<number | null>): Promise<string | null> {
      const cached = this.lookup(key);
      if (cached) return Promise.resolve(cached);
      return singleFlight(key, async () => {
        const temp = temps.create('obj');
        try {
          const size = await write(temp);
          if (size === null) {
            await temps.discard(temp);
            return null;
          }
          const path = await moveIn(key, temp, size);
          temps.committed(temp);
          return path;
        } catch (error) {
          await temps.discard(temp);
          throw error;
        }
      });
    },

    /**
     * Takes a complete file written elsewhere under DATA_DIR (an upload, a preview
     * just made) into the cache. False when it was not taken (too large, another
     * file system): the caller still owns the file then.
     */
    async adopt(key: string, file: string, size: number): Promise<boolean> {
      if (!this.admits(size)) return false;
      try {
        await moveIn(key, file, size);
        return true;
      } catch (error) {
        log.warn('could not keep a file in the cache', { err: error });
        return false;
      }
    },

    async close(): Promise<void> {
      await singleFlight.settle();
      await temps.close();
    },
  };
}
