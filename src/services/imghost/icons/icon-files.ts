import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { IconCatalog } from './icon-catalog.js';
import { iconNotFound, iconProcessingFailed } from './icon-errors.js';
import { prepareAnswer, type PreparedAnswer } from '../../../http/answer/index.js';
import { ICON_CACHE_CONTROL, MAX_ICON_FILE_BYTES, SOURCE_CACHE_MAX_BYTES, SOURCE_CACHE_MAX_ENTRIES, SVG_CSP } from './limits.js';
import { createLru } from '../../../lib/lru.js';
import { createSingleFlight } from '../../../lib/single-flight.js';
import { compileSvgTemplate, type SvgTemplate } from './svg-template.js';

// Icon files are read on first use, compiled into recolouring templates and kept
// (bounded) together with their bytes, which /SFs serves unchanged; a rescan of the
// folder drops them all, since any file may have changed.

export interface IconFile {
  template: SvgTemplate;
  /** Hash of the file's bytes: part of every ETag made from it. */
  version: string;
  /** The file as it is on disk, the answer of /SFs/{file}.svg, built once. */
  raw: PreparedAnswer;
}

export function createIconFiles(catalog: IconCatalog) {
  const cache = createLru<IconFile>({ maxEntries: SOURCE_CACHE_MAX_ENTRIES, maxBytes: SOURCE_CACHE_MAX_BYTES });
  const singleFlight = createSingleFlight<IconFile>();
  catalog.onChange(() => cache.clear());

  const load = async (fileName: string, path: string, generation: number): Promise<IconFile> => {
    const bytes = await readBounded(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') {
        // Listed but gone: the list is stale; the rescan will catch up.
        void catalog.rescan();
        throw iconNotFound();
      }
      // The code, not the error: its message carries the file's path into the log.
      throw iconProcessingFailed(new Error(`icon file ${fileName} cannot be read (${error.code ?? error.name})`));
    });
    let template: SvgTemplate;
    try {
      template = compileSvgTemplate(bytes.toString('utf8'));
    } catch (error) {
      throw iconProcessingFailed(error);
    }
    const version = createHash('sha256').update(bytes).digest('base64url').slice(0, 16);
    const raw = prepareAnswer(bytes, {
      contentType: 'image/svg+xml',
      etag: `"raw-${version}"`,
      cacheControl: ICON_CACHE_CONTROL,
      headers: { 'Content-Security-Policy': SVG_CSP },
      compressMinBytes: Infinity,
    });
    const file: IconFile = { template, version, raw };
    // A rescan while we were reading means the bytes may be stale: use, do not keep.
    // Counted three times: the bytes, and the template's text (UTF-16).
    if (catalog.generation === generation) cache.set(fileName, file, bytes.length * 3 + fileName.length);
    return file;
  };

  return {
    /** Throws the documented errors: 404 for an unknown name, 500 for a broken file. */
    get(fileName: string): IconFile | Promise<IconFile> {
      const cached = cache.get(fileName);
      if (cached) return cached;
      const path = catalog.path(fileName);
      if (path === undefined) throw iconNotFound();
      const generation = catalog.generation;
      return singleFlight(`${generation}\u0000${fileName}`, () => load(fileName, path, generation));
    },
  };
}

class IconTooLargeError extends Error {
  readonly code = 'EFBIG';
}

/** A file over MAX_ICON_FILE_BYTES is an error, not something to hold in memory. */
async function readBounded(path: string): Promise<Buffer> {
  // O_NOFOLLOW: a file swapped for a symbolic link after the scan is not followed.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    if ((await handle.stat()).size > MAX_ICON_FILE_BYTES) throw new IconTooLargeError('icon file is too large');
    const bytes = await handle.readFile();
    // It may have grown since the stat.
    if (bytes.length > MAX_ICON_FILE_BYTES) throw new IconTooLargeError('icon file is too large');
    return bytes;
  } finally {
    await handle.close();
  }
}
