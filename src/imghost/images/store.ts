import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../core/log.js';
import { FORMAT_LIST, FORMATS, type ImageFormat } from './formats.js';
import { createLru } from '../../core/lru.js';

// Storage layout under IMAGES_DIR ($DATA_DIR/images), content-addressed:
//
//   <md5[0:2]>/<md5>.<ext>          the original, ext from its content: jpg png gif webp
//   <md5[0:2]>/<md5>.preview.webp   its WebP preview, made on first request
//   .tmp/<random>.<ext>             uploads and conversions being written
//
// The md5 alone names an image: the timestamp of a URL is not part of the name, so
// the same bytes are stored once and every URL ever handed out for them works. The
// two-character shard keeps folders small (256 of them) without a database. A file
// appears under its final name only by rename(2) from .tmp (same file system, so
// atomic): a reader never sees half a file. `.preview.webp` cannot collide with an
// original, whose name has exactly one dot.
//
// A request finds a file by stat(2) of its few possible names, never by listing a
// folder, and remembers the answer in a bounded in-memory map. Files are immutable
// once in place, so a remembered answer stays true until the file is deleted by
// hand; the reader then gets ENOENT and forgets it.

/** Remembered lookups (originals and previews), ~200 bytes each. */
export const LOOKUP_CACHE_ENTRIES = 10_000;
/** Temp files older than this at start-up were left by a crash, not a live upload. */
export const STALE_TEMP_MS = 60 * 60 * 1000;

const TEMP_DIR = '.tmp';

export interface StoredFile {
  /** Its entry in the lookup cache: the md5, or the md5 + ".webp" for a preview. */
  key: string;
  path: string;
  mime: string;
  size: number;
  /** Strong: the bytes under a name never change (RFC 9110 8.8.3). */
  etag: string;
}

export type ImageStore = Awaited<ReturnType<typeof openImageStore>>;

export async function openImageStore(imagesDir: string, log: Logger) {
  const tempDir = join(imagesDir, TEMP_DIR);
  await mkdir(tempDir, { recursive: true });
  await sweepStaleTemps(tempDir, log);
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

  async function ensureShard(md5: string): Promise<void> {
    const dir = shardDir(md5);
    if (shards.has(dir)) return;
    await mkdir(dir, { recursive: true });
    shards.add(dir);
  }

  return {
    tempDir,

    /** A fresh name in the temp folder; callers create it with flag 'wx'. */
    tempPath(ext: string): string {
      return join(tempDir, `${randomBytes(16).toString('hex')}.${ext}`);
    },

    async findOriginal(md5: string): Promise<StoredFile | null> {
      const known = cache.get(md5);
      if (known) return known;
      const etag = `"${md5}"`;
      const found = await Promise.all(
        FORMAT_LIST.map((format) => fileAt(md5, originalPath(md5, format), FORMATS[format].mime, etag)),
      );
      const file = found.find((candidate) => candidate !== null) ?? null;
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
     * file is dropped and the stored one kept (same name means same bytes).
     */
    async commitOriginal(temp: string, md5: string, format: ImageFormat, size: number): Promise<StoredFile> {
      const path = originalPath(md5, format);
      const file: StoredFile = { key: md5, path, mime: FORMATS[format].mime, size, etag: `"${md5}"` };
      if (await fileAt(md5, path, file.mime, file.etag)) {
        await rm(temp, { force: true });
      } else {
        await ensureShard(md5);
        await rename(temp, path);
      }
      cache.set(md5, file);
      return file;
    },

    /** Moves a finished conversion into place beside its original. */
    async commitPreview(temp: string, md5: string): Promise<StoredFile> {
      const path = previewPath(md5);
      await ensureShard(md5);
      await rename(temp, path);
      const file = await fileAt(previewKey(md5), path, FORMATS.webp.mime, previewEtag(md5));
      if (!file) throw new Error('preview vanished right after its rename');
      cache.set(file.key, file);
      return file;
    },

    /** The file went away under us (deleted by hand): stop remembering it. */
    forget(file: StoredFile): void {
      cache.delete(file.key);
    },
  };
}

/** Start-up only (never per request): temp files a crash left behind. */
async function sweepStaleTemps(tempDir: string, log: Logger): Promise<void> {
  const cutoff = Date.now() - STALE_TEMP_MS;
  let removed = 0;
  for (const name of await readdir(tempDir)) {
    const path = join(tempDir, name);
    const info = await stat(path).catch(() => null);
    if (info && info.mtimeMs < cutoff) {
      await rm(path, { force: true, recursive: true });
      removed++;
    }
  }
  if (removed > 0) log.info('removed stale temp files', { removed });
}
