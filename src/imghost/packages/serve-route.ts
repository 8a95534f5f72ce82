import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { HttpError } from '../../http/errors.js';
import { sendJson } from '../../http/respond.js';
import { answeredNotModified } from '../../http/prepared-answer.js';
import type { ImghostContext } from '../context.js';
import { parseRange } from './byte-range.js';
import { isPackageFileName } from './package-names.js';
import { SHA256, type PackageStore } from './package-store.js';

/** The bytes under a hash never change (RFC 8246). */
export const PACKAGE_CACHE_CONTROL = 'public, max-age=31536000, immutable';
const READ_CHUNK_BYTES = 64 * 1024;

export const packageNotFound = () => new HttpError(404, 'NOT_FOUND', 'Package not found');
const packageGone = () => new HttpError(410, 'GONE', 'This package was removed by an administrator');

/** GET/HEAD /pkg/:sha256/:file, with single Range requests so that a download can resume. */
export function servePackage(store: PackageStore) {
  return async (ctx: ImghostContext): Promise<void> => {
    const sha256 = ctx.params.sha256 ?? '';
    const name = ctx.params.file ?? '';
    if (!SHA256.test(sha256) || !isPackageFileName(name)) throw packageNotFound();
    const found = await store.find(sha256);
    if (found === 'removed') throw packageGone();
    if (!found) throw packageNotFound();
    const common = [
      'ETag', found.etag,
      'Cache-Control', PACKAGE_CACHE_CONTROL,
      'Accept-Ranges', 'bytes',
    ];
    if (answeredNotModified(ctx, found.etag, common)) return;
    const ifRange = ctx.req.headers['if-range'];
    // If-Range with anything but our ETag (a date, an old tag) asks for the whole file.
    const range = ifRange === undefined || ifRange === found.etag ? parseRange(ctx.req.headers.range, found.size) : null;
    if (range === 'unsatisfiable') {
      throw new HttpError(416, 'RANGE_NOT_SATISFIABLE', 'Range not satisfiable', { headers: { 'Content-Range': `bytes */${found.size}` } });
    }
    const head = [
      ...common,
      'Content-Type', 'application/zip',
      'Content-Disposition', `attachment; filename="${name}"`,
      'X-Content-Type-Options', 'nosniff',
    ];
    const start = range?.start ?? 0;
    const end = range?.end ?? found.size - 1;
    head.push('Content-Length', String(end - start + 1));
    if (range) head.push('Content-Range', `bytes ${start}-${end}/${found.size}`);
    const status = range ? 206 : 200;
    if (ctx.method === 'HEAD') {
      ctx.res.writeHead(status, head).end();
      return;
    }
    const stream = createReadStream(found.path, { start, end, highWaterMark: READ_CHUNK_BYTES });
    try {
      await new Promise<void>((resolve, reject) => {
        stream.once('open', () => resolve());
        stream.once('error', reject);
      });
    } catch {
      // Removed between the stat and the open (another host, or by hand).
      throw (await store.find(sha256)) === 'removed' ? packageGone() : packageNotFound();
    }
    ctx.res.writeHead(status, head);
    try {
      await pipeline(stream, ctx.res);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException | null)?.code;
      if (code !== 'ERR_STREAM_PREMATURE_CLOSE' && code !== 'ECONNRESET' && code !== 'EPIPE') ctx.log.warn('package stream failed', { err: error });
    }
  };
}

/** DELETE /api/packages/:sha256 (upload token): the site removes a version's file for malware. */
export function removePackage(store: PackageStore, checkToken: (authorization: string | undefined) => void) {
  return async (ctx: ImghostContext): Promise<void> => {
    checkToken(ctx.req.headers.authorization);
    const sha256 = ctx.params.sha256 ?? '';
    if (!SHA256.test(sha256)) throw packageNotFound();
    await store.remove(sha256);
    sendJson(ctx, 200, { success: true });
  };
}
