import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Handler } from './context.js';
import { HttpError } from './errors.js';
import { contentTypeFor } from './mime.js';
import { HTML_CSP } from './security-headers.js';
import { etagMatches, sendBody, sendNoContent } from './respond.js';
import { strongEtag } from './etag.js';

// The static folder is small and ships with the release: it is read into memory
// once at start-up. A request can then only ever name a file that is in the map,
// so no path a client sends (.., %2e%2e, backslashes, NUL) can reach the disk.

export const MAX_STATIC_FILE_BYTES = 4 * 1024 * 1024;

interface StaticFile {
  body: Buffer;
  contentType: string;
  etag: string;
}

export function loadStaticFolder(root: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && statSync(full).size <= MAX_STATIC_FILE_BYTES) {
        const body = readFileSync(full);
        const key = relative(root, full).split(sep).join('/');
        const etag = strongEtag(body);
        files.set(key, { body, contentType: contentTypeFor(full), etag });
      }
    }
  };
  // A service without assets of its own simply serves none.
  if (existsSync(root)) walk(root);
  return files;
}

/** Serves `files` for a route whose last segment is `*`, or a fixed file name. */
export function staticHandler(files: Map<string, StaticFile>, fixedName?: string): Handler<any> {
  return (ctx) => {
    const name = fixedName ?? ctx.params['*'] ?? '';
    if (!isPlainRelativePath(name)) throw new HttpError(404, 'NOT_FOUND', 'Not found');
    const file = files.get(name) ?? files.get(name ? `${name}/index.html` : 'index.html');
    if (!file) throw new HttpError(404, 'NOT_FOUND', 'Not found');
    const headers: Record<string, string> = {
      ETag: file.etag,
      'Cache-Control': 'public, max-age=300, must-revalidate',
    };
    if (file.contentType.startsWith('text/html')) headers['Content-Security-Policy'] = HTML_CSP;
    if (etagMatches(ctx.req.headers['if-none-match'], file.etag)) {
      sendNoContent(ctx, 304, headers);
      return;
    }
    sendBody(ctx, 200, file.body, file.contentType, headers);
  };
}

function isPlainRelativePath(name: string): boolean {
  if (name.length > 512 || name.includes('\0') || name.includes('\\')) return false;
  return name.split('/').every((segment, i, all) => segment !== '..' && segment !== '.' && (segment !== '' || i === all.length - 1));
}
