import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { link, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Logger } from '../../../lib/log.js';
import { createLru } from '../../../lib/lru.js';
import type { ObjectStorage } from '../storage/object-storage.js';
import { createMissMemory } from '../storage/miss-memory.js';
import { BucketUnavailable } from '../storage/bucket-unavailable.js';
import { FORMAT_LIST, FORMATS, type ImageFormat } from './formats.js';
import { openFile } from './open-file.js';
import { sameContent } from './same-content.js';
import { LOOKUP_CACHE_ENTRIES, md5Taken, type ImageStore, type LocalCopy, type StoredFile } from './store.js';
import { createTempArea } from '../storage/temp-files.js';

// Images in a bucket (STORAGE_URL=s3://...), under the same names as on disk
// (store.ts), below the prefix:
//
//   images/<md5[0:2]>/<md5>.<ext>          the original, x-amz-meta-sha256 its SHA-256
//   images/<md5[0:2]>/<md5>.preview.webp   its WebP preview, made by the first host that missed it,
//                                          x-amz-meta-sha256 its SHA-256
//
// An upload is spooled to a local temp file (hashed on the way), checked, then PUT
// once with If-None-Match: * and Content-MD5, so the service stores it whole or not
// at all and never a second copy. The SHA-256 in its metadata tells the same bytes
// from an md5 collision without downloading them. Reads come from the local cache of
// hot objects (object-cache.ts), filled from the bucket on a miss and checked against
// the MD5 of the name or the SHA-256 of the metadata on the way; objects too large
// for the cache stream from the bucket. Every host sharing the bucket sees every
// image; lookups are remembered as on disk, since objects never change.

const TEMP_DIR = '.tmp';
const originalName = (md5: string, format: ImageFormat) => `images/${md5.slice(0, 2)}/${md5}.${FORMATS[format].ext}`;
const previewName = (md5: string) => `images/${md5.slice(0, 2)}/${md5}.preview.webp`;
const previewEtag = (md5: string) => `"${md5}-webp"`;
/** An original's lookup key is its MD5, which its bytes must have; a preview's is "<md5>.webp". */
const md5Of = (file: StoredFile) => (file.key.length === 32 ? file.key : undefined);

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

export async function openBucketImageStore(imagesDir: string, storage: ObjectStorage, log: Logger): Promise<ImageStore> {
  const tempDir = join(imagesDir, TEMP_DIR);
  await mkdir(tempDir, { recursive: true });
  const temps = createTempArea(tempDir, log);
  await temps.sweepOrphans();
  const lookups = createLru<StoredFile>({ maxEntries: LOOKUP_CACHE_ENTRIES, maxBytes: Infinity });
  const { cache, client } = storage;
  /** md5s no format of which is in the bucket, for a few seconds (miss-memory.ts). */
  const misses = createMissMemory();

  /** The object `name`, from the cache's copy or a HEAD of the bucket; its SHA-256 when the bucket says. */
  async function objectAt(key: string, name: string, mime: string, etag: string): Promise<{ file: StoredFile; sha256?: string; cached?: true } | null> {
    const cached = cache.lookup(name);
    if (cached) {
      const info = await stat(cached).catch(() => null);
      if (info) return { file: { key, path: name, mime, size: info.size, etag }, cached: true };
      cache.forget(name);
    }
    const info = await client.head(storage.key(name));
    return info ? { file: { key, path: name, mime, size: info.size, etag }, sha256: info.meta.sha256 } : null;
  }

  /** Formats in a fixed order, so every host agrees on which one an md5 is. */
  async function originalAnywhere(md5: string) {
    const found = await Promise.all(FORMAT_LIST.map((format) => objectAt(md5, originalName(md5, format), FORMATS[format].mime, `"${md5}"`)));
    return found.find((candidate) => candidate !== null) ?? null;
  }

  /**
   * A hard link of the cache's copy, ours until release(): the cache may evict (and
   * delete) its file while a conversion waits for a decode slot. Undefined when no
   * link could be made (gone again at once, another file system): download a copy.
   */
  async function pinnedCopy(file: StoredFile): Promise<LocalCopy | null | undefined> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const path = await cache.fill(file.path, (temp) => storage.download(file.path, temp, md5Of(file)));
      if (!path) return null;
      const pinned = temps.create('obj');
      try {
        await link(path, pinned);
        return { path: pinned, release: () => temps.discard(pinned) };
      } catch (error) {
        await temps.discard(pinned);
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
        // Evicted between the fill and the link: fetch it again.
        cache.forget(file.path);
      }
    }
    return undefined;
  }

  async function localCopy(file: StoredFile): Promise<LocalCopy | null> {
    if (cache.admits(file.size)) {
      const pinned = await pinnedCopy(file);
      if (pinned !== undefined) return pinned;
    }
    const temp = temps.create('obj');
    try {
      if ((await storage.download(file.path, temp, md5Of(file))) === null) {
        await temps.discard(temp);
        return null;
      }
    } catch (error) {
      await temps.discard(temp);
      throw error;
    }
    return { path: temp, release: () => temps.discard(temp) };
  }

  /** The same bytes as `temp`: by SHA-256 when the object carries one, else by reading both. */
  async function sameBytes(stored: { file: StoredFile; sha256?: string }, temp: string, sha256: string): Promise<boolean> {
    if (stored.sha256 !== undefined) return stored.sha256 === sha256;
    const copy = await localCopy(stored.file);
    if (!copy) return false;
    try {
      return await sameContent(copy.path, temp);
    } finally {
      await copy.release();
    }
  }

  /**
   * The headers already say file.size (from a HEAD); the checked copy must agree, or
   * the answer would be cut or padded. Only a service that answered a HEAD racing a
   * write gets here: forget the lookup and let the client retry.
   */
  function sameSizeAsLookup(file: StoredFile): void {
    const size = cache.sizeOf(file.path);
    if (size === undefined || size === file.size) return;
    lookups.delete(file.key);
    throw new BucketUnavailable(`HEAD (${file.path}: ${file.size} bytes, the object has ${size})`, null);
  }

  /** Keeps a file just stored in the bucket in the cache too (it is hot), or drops it. */
  async function keepLocally(name: string, temp: string, size: number): Promise<void> {
    if (await cache.adopt(name, temp, size)) temps.committed(temp);
    else await temps.discard(temp);
  }

  return {
    temps,

    async findOriginal(md5) {
      const known = lookups.get(md5);
      if (known) return known;
      if (misses.has(md5)) return null;
      const epoch = misses.epoch;
      const found = await originalAnywhere(md5);
      if (found) lookups.set(md5, found.file);
      else misses.remember(md5, epoch);
      return found?.file ?? null;
    },

    async findPreview(md5) {
      const key = `${md5}.webp`;
      const known = lookups.get(key);
      if (known) return known;
      const found = await objectAt(key, previewName(md5), FORMATS.webp.mime, previewEtag(md5));
      // Every preview this host stores carries its SHA-256. One without (copied from a
      // disk, or one that a service lets us see while another host is still writing
      // it) is made here again and stored with it: a preview costs a conversion, a
      // wrong one would be served for a year.
      if (!found || (found.cached === undefined && found.sha256 === undefined)) return null;
      lookups.set(key, found.file);
      return found.file;
    },

    async commitOriginal(temp, md5, format, size) {
      const name = originalName(md5, format);
      misses.clear(md5);
      const sha256 = await sha256Of(temp);
      let stored = await originalAnywhere(md5);
      if (!stored) {
        const outcome = await client.put(storage.key(name), temp, size, { contentType: FORMATS[format].mime, md5, meta: { sha256 } });
        if (outcome === 'stored') {
          const file: StoredFile = { key: md5, path: name, mime: FORMATS[format].mime, size, etag: `"${md5}"` };
          await keepLocally(name, temp, size);
          lookups.set(md5, file);
          return file;
        }
        // Another host stored this md5 between our HEAD and our PUT.
        stored = await originalAnywhere(md5);
        if (!stored) throw new BucketUnavailable('PUT (refused as existing, then not found)', 412);
      }
      const same = stored.file.path === name && stored.file.size === size && (await sameBytes(stored, temp, sha256));
      await temps.discard(temp);
      if (!same) throw md5Taken();
      lookups.set(md5, stored.file);
      return stored.file;
    },

    async commitPreview(temp, md5) {
      const name = previewName(md5);
      const { size } = await stat(temp);
      // 'exists': another host made it first; its bytes are the same (one sharp, one
      // set of options), so either copy is right.
      await client.put(storage.key(name), temp, size, { contentType: FORMATS.webp.mime, meta: { sha256: await sha256Of(temp) } });
      const file: StoredFile = { key: `${md5}.webp`, path: name, mime: FORMATS.webp.mime, size, etag: previewEtag(md5) };
      await keepLocally(name, temp, size);
      lookups.set(file.key, file);
      return file;
    },

    forget(file) {
      lookups.delete(file.key);
      cache.forget(file.path);
    },

    async open(file, range) {
      const cached = cache.lookup(file.path);
      if (cached) {
        sameSizeAsLookup(file);
        const stream = await openFile(cached, range);
        if (stream) return stream;
        cache.forget(file.path);
      }
      if (cache.admits(file.size)) {
        try {
          const path = await cache.fill(file.path, (temp) => storage.download(file.path, temp, md5Of(file)));
          if (!path) return null;
          sameSizeAsLookup(file);
          const stream = await openFile(path, range);
          if (stream) return stream;
        } catch (error) {
          if (error instanceof BucketUnavailable) throw error;
          // The local disk failed (full, say): the bucket can still answer.
          log.warn('could not cache an object, serving it from the bucket', { err: error });
        }
      }
      // Larger than the whole cache (or evicted the moment it arrived): straight from the bucket, the range passed on.
      const object = await client.get(storage.key(file.path), range);
      return object?.body ?? null;
    },

    localCopy,
    // Objects are not deleted by hand under a running host; a read that finds one
    // gone answers 404 all the same.
    stillThere: async () => true,
    redirectUrl: (file) => storage.publicUrl(file.path),
    close: () => temps.close(),
  };
}
