import { close, createReadStream, fstat, open } from 'node:fs';
import { mkdir, rename, stat, writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Logger } from '../../../lib/log.js';
import { createLru } from '../../../lib/lru.js';
import { sendFileRange } from './file-sender.js';
import { syncDirectory, syncFile } from '../storage/durable.js';
import { createTempArea, type TempArea } from '../storage/temp-files.js';

// Storage layout under PACKAGES_DIR ($DATA_DIR/packages), content-addressed by SHA-256:
//
//   <sha256[0:2]>/<sha256>.zip       the package, written once, never changed
//   <sha256[0:2]>/<sha256>.removed   an administrator removed it (malware): 410 from then on
//   .tmp/<writer>_<random>.zip       uploads being received (storage/temp-files.ts)
//
// As with images, a file appears under its final name only by rename(2) after an
// fsync, and the folder is fsync'd after (storage/durable.ts). The same bytes are kept once:
// a second upload finds the name taken and drops its temporary copy. A lookup is
// made per request, not remembered: another host sharing the folder may mark a
// package removed at any moment. A download opens the file and looks for the marker
// at once (two calls on libuv's threads side by side); the size is that of the
// opened file (fstat) the first time, then remembered under the hash: the bytes
// under a name never change.

const TEMP_DIR = '.tmp';
/** Package sizes remembered (about 100 bytes each with their key). */
const KNOWN_SIZES = 10_000;
export const SHA256 = /^[0-9a-f]{64}$/;

export interface StoredPackage {
  /** A file path (disk), or its name in the bucket (package-bucket-store.ts). */
  path: string;
  size: number;
  /** Strong, from the hash: the bytes under a name never change. */
  etag: string;
}

export type PackageLookup = StoredPackage | 'removed' | null;

/**
 * Reads of up to 256 KiB: 4 reads and writes per MiB where 64 KiB took 16; with 50
 * downloads at once that is at most 12.5 MiB of buffers (one chunk each in flight).
 */
export const READ_CHUNK_BYTES = 256 * 1024;

/** A package opened for a download: read() once, or release() when nothing will be read. */
export interface OpenedPackage {
  size: number;
  etag: string;
  /** The inclusive byte range, ready to pipe (it closes what open() held); null when the bytes went away. */
  read(start: number, end: number): Promise<Readable | null>;
  /**
   * A file on disk: sends the inclusive range to `res` (head written) from reused
   * buffers (file-sender.ts) and closes what open() held; used instead of read().
   */
  send?(res: ServerResponse, start: number, end: number, onError: (error: Error) => void): Promise<void>;
  /** Nothing will be read (a 304, a 416): let go of what open() holds. */
  release(): void;
}

/** Where packages are kept: this folder (openPackageStore) or a bucket (package-bucket-store.ts). */
export interface PackageStore {
  temps: TempArea;
  find(sha256: string): Promise<PackageLookup>;
  /** The package opened for reading, 'removed' (410 even while its file is still there), or null. */
  open(sha256: string): Promise<OpenedPackage | 'removed' | null>;
  isRemoved(sha256: string): Promise<boolean>;
  commit(temp: string, sha256: string): Promise<void>;
  remove(sha256: string): Promise<boolean>;
  /** Where downloads are redirected (STORAGE_PUBLIC_URL), if anywhere. */
  redirectUrl(sha256: string): string | undefined;
  close(): Promise<void>;
}

const openForRead = (path: string) => new Promise<number | null>((resolve) => open(path, 'r', (error, fd) => resolve(error ? null : fd)));
const sizeOf = (fd: number) => new Promise<number | null>((resolve) => fstat(fd, (error, info) => resolve(error ? null : info.size)));

export async function openPackageStore(dir: string, log: Logger): Promise<PackageStore> {
  const temps = createTempArea(join(dir, TEMP_DIR), log);
  await mkdir(temps.dir, { recursive: true });
  await temps.sweepOrphans();
  const shard = (sha256: string) => join(dir, sha256.slice(0, 2));
  const packagePath = (sha256: string) => join(shard(sha256), `${sha256}.zip`);
  const removedPath = (sha256: string) => join(shard(sha256), `${sha256}.removed`);
  const exists = (path: string) => stat(path).then((info) => info, () => null);
  const sizes = createLru<number>({ maxEntries: KNOWN_SIZES, maxBytes: KNOWN_SIZES * 100 });

  return {
    temps,

    async find(sha256: string): Promise<PackageLookup> {
      if (await exists(removedPath(sha256))) return 'removed';
      const info = await exists(packagePath(sha256));
      return info ? { path: packagePath(sha256), size: info.size, etag: `"${sha256}"` } : null;
    },

    /** The package opened for reading, 'removed' (410 even while its file is still there), or null. */
    async open(sha256: string): Promise<OpenedPackage | 'removed' | null> {
      const [fd, marker] = await Promise.all([openForRead(packagePath(sha256)), exists(removedPath(sha256))]);
      if (fd !== null && marker !== null) close(fd, () => {});
      if (marker !== null) return 'removed';
      if (fd === null) return null;
      let size = sizes.get(sha256);
      if (size === undefined) {
        const measured = await sizeOf(fd);
        if (measured === null) {
          close(fd, () => {});
          return null;
        }
        sizes.set(sha256, (size = measured), 100);
      }
      return {
        size,
        etag: `"${sha256}"`,
        read: async (start, end) => createReadStream('', { fd, start, end, highWaterMark: READ_CHUNK_BYTES }),
        send: (res, start, end, onError) => sendFileRange(fd, start, end, res, onError),
        release: () => close(fd, () => {}),
      };
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

    redirectUrl: () => undefined,
    close: () => temps.close(),
  };
}
