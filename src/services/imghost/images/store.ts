import { mkdir, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { HttpError } from '../../../http/errors.js';
import type { Logger } from '../../../lib/log.js';
import { createLru } from '../../../lib/lru.js';
import { syncDirectory, syncFile } from '../storage/durable.js';
import { FORMAT_LIST, FORMATS, type ImageFormat } from './formats.js';
import { openFile } from './open-file.js';
import { sameContent } from './same-content.js';
import { createTempArea, type TempArea } from '../storage/temp-files.js';
import type { ByteRange } from '../../../http/byte-range.js';

// Storage layout under IMAGES_DIR ($DATA_DIR/images), content-addressed:
//
//   <md5[0:2]>/<md5>.<ext>          the original, ext from its content: jpg png gif webp
//   <md5[0:2]>/<md5>.preview.webp   its WebP preview, made on first request
//   .tmp/<writer>_<random>.<ext>    uploads and conversions being written (storage/temp-files.ts)
//
// The md5 alone names an image: the timestamp of a URL is not part of the name, so
// the same bytes are stored once and every URL ever handed out for them works. One
// md5 is one original: the same bytes always sniff as the same format, so a second
// file under another extension could only be different bytes with the same md5 (a
// collision), and is refused rather than stored beside the first (the check is on
// disk, so every process sharing the folder agrees; only two colliding uploads
// committed in the same instant by two processes could both pass it). The two-character
// shard keeps folders small (256 of them) without a database. A file appears under
// its final name only by rename(2) from .tmp (same file system, so atomic), after
// an fsync, and the folder is fsync'd after the rename (storage/durable.ts): neither a
// reader nor a power cut ever sees half a file. `.preview.webp` cannot collide with
// an original, whose name has exactly one dot.
//
// A request finds a file by stat(2) of its few possible names, never by listing a
// folder, and remembers the answer in a bounded in-memory map. Files are immutable
// once in place, so a remembered answer stays true until the file is deleted by
// hand; the reader then gets ENOENT and forgets it.

/** Remembered lookups (originals and previews), ~200 bytes each. */
export const LOOKUP_CACHE_ENTRIES = 10_000;

const TEMP_DIR = '.tmp';

export interface StoredFile {
  /** Its entry in the lookup cache: the md5, or the md5 + ".webp" for a preview. */
  key: string;
  /** Where it is: a file path (disk), or its name in the bucket, "images/<md5[0:2]>/<name>" (bucket-store.ts). */
  path: string;
  mime: string;
  size: number;
  /** Strong: the bytes under a name never change (RFC 9110 8.8.3). */
  etag: string;
}

export const md5Taken = () =>
  new HttpError(409, 'CONFLICT', 'A different image with the same md5 is already stored', { field: 'image' });

/** A local file holding an image's bytes, for sharp to read; release() when done with it. */
export interface LocalCopy {
  path: string;
  release(): Promise<void>;
}

/** Where images are kept: this folder (openImageStore) or a bucket (bucket-store.ts). */
export interface ImageStore {
  temps: TempArea;
  findOriginal(md5: string): Promise<StoredFile | null>;
  findPreview(md5: string): Promise<StoredFile | null>;
  commitOriginal(temp: string, md5: string, format: ImageFormat, size: number): Promise<StoredFile>;
  commitPreview(temp: string, md5: string): Promise<StoredFile>;
  forget(file: StoredFile): void;
  /** The file's bytes (or the inclusive `range` of them), opened before any header is sent; null when it is gone. */
  open(file: StoredFile, range?: ByteRange): Promise<Readable | null>;
  /** A local file with the bytes (previews convert from it); null when it is gone. */
  localCopy(file: StoredFile): Promise<LocalCopy | null>;
  /** Whether the file is still there (an image deleted by hand is gone in every form). */
  stillThere(file: StoredFile): Promise<boolean>;
  /** Where reads of it are redirected (STORAGE_PUBLIC_URL), if anywhere. */
  redirectUrl(file: StoredFile): string | undefined;
  close(): Promise<void>;
}

const keepFile = async () => {};

export async function openImageStore(imagesDir: string, log: Logger): Promise<ImageStore> {
  const tempDir = join(imagesDir, TEMP_DIR);
  await mkdir(tempDir, { recursive: true });
  const temps = createTempArea(tempDir, log);
  await temps.sweepOrphans();
  const cache = createLru<StoredFile>({ maxEntries: LOOKUP_CACHE_ENTRIES, maxBytes: Infinity });
  const shards = new Set<string>();

  const shardDir = (md5: string) => join(imagesDir, md5.slice(0, 2));
  const originalPath = (md5: string, format: ImageFormat) => join(shardDir(md5), `${md5}.${FORMATS[format].ext}`);
  const previewPath = (md5: string) => join(shardDir(md5), `${md5}.preview.webp`);
  const previewKey = (md5: string) => `${md5}.webp`;
  // The preview's bytes differ from the original's, so its tag must too.
  const previewEtag = (md5: string) => `"${md5}-webp"`;

  async function fileAt(key: string, path: string, mime: string, etag: string): Promise<StoredFile | null> {
    try {
      const info = await stat(path);
      return info.isFile() ? { key, path, mime, size: info.size, etag } : null;
    } catch {
      return null;
    }
  }

  /** The original on disk, whatever the cache says; formats in a fixed order, so every process agrees. */
  async function originalOnDisk(md5: string): Promise<StoredFile | null> {
    const etag = `"${md5}"`;
    const found = await Promise.all(
      FORMAT_LIST.map((format) => fileAt(md5, originalPath(md5, format), FORMATS[format].mime, etag)),
    );
    return found.find((candidate) => candidate !== null) ?? null;
  }

  async function ensureShard(md5: string): Promise<void> {
    const dir = shardDir(md5);
    if (shards.has(dir)) return;
    // A new shard is an entry in the images folder: it must survive a power cut too.
    if (await mkdir(dir, { recursive: true })) await syncDirectory(imagesDir);
    shards.add(dir);
  }

  /** fsync, rename into place, fsync the folder: durable before anyone hears of it. */
  async function moveIntoPlace(temp: string, md5: string, path: string): Promise<void> {
    await ensureShard(md5);
    await syncFile(temp);
    await rename(temp, path);
    temps.committed(temp);
    await syncDirectory(shardDir(md5));
  }

  return {
    temps,

    async findOriginal(md5: string): Promise<StoredFile | null> {
      const known = cache.get(md5);
      if (known) return known;
      const file = await originalOnDisk(md5);
      if (file) cache.set(md5, file);
      return file;
    },

    async findPreview(md5: string): Promise<StoredFile | null> {
      const key = previewKey(md5);
      const known = cache.get(key);
      if (known) return known;
      const file = await fileAt(key, previewPath(md5), FORMATS.webp.mime, previewEtag(md5));
      if (file) cache.set(key, file);
      return file;
    },

    /**
     * Moves a complete upload into place. The same bytes already stored: the temp
     * file is dropped and the stored one kept. Other bytes under the same md5 (in
     * any format): 409, and the stored one stays the only one.
     */
    async commitOriginal(temp: string, md5: string, format: ImageFormat, size: number): Promise<StoredFile> {
      const stored = await originalOnDisk(md5);
      if (stored) {
        const same = stored.path === originalPath(md5, format) && stored.size === size && (await sameContent(stored.path, temp));
        await temps.discard(temp);
        if (!same) throw md5Taken();
        cache.set(md5, stored);
        return stored;
      }
      const path = originalPath(md5, format);
      await moveIntoPlace(temp, md5, path);
      const file: StoredFile = { key: md5, path, mime: FORMATS[format].mime, size, etag: `"${md5}"` };
      cache.set(md5, file);
      return file;
    },

    /** Moves a finished conversion into place beside its original. */
    async commitPreview(temp: string, md5: string): Promise<StoredFile> {
      const path = previewPath(md5);
      await moveIntoPlace(temp, md5, path);
      const file = await fileAt(previewKey(md5), path, FORMATS.webp.mime, previewEtag(md5));
      if (!file) throw new Error('preview vanished right after its rename');
      cache.set(file.key, file);
      return file;
    },

    /** The file went away under us (deleted by hand): stop remembering it. */
    forget(file: StoredFile): void {
      cache.delete(file.key);
    },

    open: (file, range) => openFile(file.path, range),
    localCopy: async (file) => ({ path: file.path, release: keepFile }),
    stillThere: (file) => stat(file.path).then(() => true, () => false),
    redirectUrl: () => undefined,

    /** Shutdown: no temp file of this process outlives it. */
    close: () => temps.close(),
  };
}
