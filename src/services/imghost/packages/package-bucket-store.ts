import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../../lib/log.js';
import { createTempArea } from '../storage/temp-files.js';
import type { ObjectStorage } from '../storage/object-storage.js';
import { createMissMemory } from '../storage/miss-memory.js';
import { BucketUnavailable } from '../storage/bucket-unavailable.js';
import type { PackageLookup, PackageStore } from './package-store.js';

// Packages in a bucket (STORAGE_URL=s3://...), under the names they have on disk
// (package-store.ts), below the prefix:
//
//   packages/<sha256[0:2]>/<sha256>.zip       the package, PUT once with its SHA-256 signed
//   packages/<sha256[0:2]>/<sha256>.removed   an administrator removed it: 410 from then on
//
// Downloads stream from the bucket with the client's Range passed on (a launcher
// resuming a download costs the bucket only the rest). Nothing found is remembered
// between requests: another host may mark a package removed at any moment. A hash
// with neither object is remembered missing a few seconds (storage/miss-memory.ts).

const TEMP_DIR = '.tmp';
const packageName = (sha256: string) => `packages/${sha256.slice(0, 2)}/${sha256}.zip`;
const removedName = (sha256: string) => `packages/${sha256.slice(0, 2)}/${sha256}.removed`;

export async function openPackageBucketStore(dir: string, storage: ObjectStorage, log: Logger): Promise<PackageStore> {
  const temps = createTempArea(join(dir, TEMP_DIR), log);
  await mkdir(temps.dir, { recursive: true });
  await temps.sweepOrphans();
  const { client } = storage;
  /** Hashes with neither a package nor a removal marker, for a few seconds (miss-memory.ts). */
  const misses = createMissMemory();
  const isRemoved = async (sha256: string) => (await client.head(storage.key(removedName(sha256)))) !== null;

  return {
    temps,

    async find(sha256): Promise<PackageLookup> {
      if (misses.has(sha256)) return null;
      const epoch = misses.epoch;
      const [removed, info] = await Promise.all([isRemoved(sha256), client.head(storage.key(packageName(sha256)))]);
      if (removed) return 'removed';
      if (!info) misses.remember(sha256, epoch);
      return info ? { path: packageName(sha256), size: info.size, etag: `"${sha256}"` } : null;
    },

    isRemoved,

    /** One PUT with the SHA-256 signed: the service keeps exactly these bytes, or nothing. */
    async commit(temp, sha256) {
      misses.clear(sha256);
      try {
        const name = packageName(sha256);
        if ((await client.head(storage.key(name))) === null) {
          const { size } = await stat(temp);
          await client.put(storage.key(name), temp, size, { contentType: 'application/zip', sha256 });
        }
      } finally {
        await temps.discard(temp);
      }
    },

    /** The marker first, then the bytes: a host that sees no package sees the marker too. */
    async remove(sha256) {
      misses.clear(sha256);
      const existed = (await client.head(storage.key(packageName(sha256)))) !== null;
      await client.put(storage.key(removedName(sha256)), Buffer.alloc(0), 0, { contentType: 'application/octet-stream' });
      await client.delete(storage.key(packageName(sha256)));
      return existed;
    },

    async open(sha256) {
      const name = packageName(sha256);
      if (misses.has(sha256)) return null;
      const epoch = misses.epoch;
      const [removed, info] = await Promise.all([isRemoved(sha256), client.head(storage.key(name))]);
      if (removed) return 'removed';
      if (!info) {
        misses.remember(sha256, epoch);
        return null;
      }
      const size = info.size;
      return {
        size,
        etag: `"${sha256}"`,
        // The range asked is the range fetched: a resumed download costs the bucket only the rest.
        async read(start, end) {
          const whole = start === 0 && end === size - 1;
          const object = await client.get(storage.key(name), whole ? undefined : { start, end });
          if (!object) return null;
          if (!whole && object.status !== 206) {
            object.body.destroy();
            throw new BucketUnavailable('GET (Range not honoured)', object.status);
          }
          return object.body;
        },
        release: () => {},
      };
    },

    redirectUrl: (sha256) => storage.publicUrl(packageName(sha256)),
    close: () => temps.close(),
  };
}
