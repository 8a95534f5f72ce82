import { mkdir, rename, stat, writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../lib/log.js';
import { syncDirectory, syncFile } from '../images/durable.js';
import { createTempArea } from '../images/temp-files.js';

// Storage layout under PACKAGES_DIR ($DATA_DIR/packages), content-addressed by SHA-256:
//
//   <sha256[0:2]>/<sha256>.zip       the package, written once, never changed
//   <sha256[0:2]>/<sha256>.removed   an administrator removed it (malware): 410 from then on
//   .tmp/<writer>_<random>.zip       uploads being received (images/temp-files.ts)
//
// As with images, a file appears under its final name only by rename(2) after an
// fsync, and the folder is fsync'd after (durable.ts). The same bytes are kept once:
// a second upload finds the name taken and drops its temporary copy. A lookup is one
// stat(2) per request, not remembered: a download streams megabytes, and another
// host sharing the folder may mark a package removed at any moment.

const TEMP_DIR = '.tmp';
export const SHA256 = /^[0-9a-f]{64}$/;

export interface StoredPackage {
  path: string;
  size: number;
  /** Strong, from the hash: the bytes under a name never change. */
  etag: string;
}

export type PackageLookup = StoredPackage | 'removed' | null;

export type PackageStore = Awaited<ReturnType<typeof openPackageStore>>;

export async function openPackageStore(dir: string, log: Logger) {
  const temps = createTempArea(join(dir, TEMP_DIR), log);
  await mkdir(temps.dir, { recursive: true });
  await temps.sweepOrphans();
  const shard = (sha256: string) => join(dir, sha256.slice(0, 2));
  const packagePath = (sha256: string) => join(shard(sha256), `${sha256}.zip`);
  const removedPath = (sha256: string) => join(shard(sha256), `${sha256}.removed`);
  const exists = (path: string) => stat(path).then((info) => info, () => null);

  return {
    temps,

    async find(sha256: string): Promise<PackageLookup> {
      if (await exists(removedPath(sha256))) return 'removed';
      const info = await exists(packagePath(sha256));
      return info ? { path: packagePath(sha256), size: info.size, etag: `"${sha256}"` } : null;
    },

    async isRemoved(sha256: string): Promise<boolean> {
      return (await exists(removedPath(sha256))) !== null;
    },

    /** Moves a checked temp file into place, or drops it when the same bytes are already kept. */
    async commit(temp: string, sha256: string): Promise<void> {
      const target = packagePath(sha256);
      if (await exists(target)) {
        await temps.discard(temp);
        return;
      }
      await syncFile(temp);
      await mkdir(shard(sha256), { recursive: true });
      await rename(temp, target);
      temps.committed(temp);
      await syncDirectory(shard(sha256));
    },

    /** Marks the bytes removed (durably, before the file goes), then deletes them. */
    async remove(sha256: string): Promise<boolean> {
      const existed = (await exists(packagePath(sha256))) !== null;
      await mkdir(shard(sha256), { recursive: true });
      await writeFile(removedPath(sha256), '', { flag: 'w' });
      await syncFile(removedPath(sha256));
      await syncDirectory(shard(sha256));
      await rm(packagePath(sha256), { force: true });
      return existed;
    },

    close: () => temps.close(),
  };
}
