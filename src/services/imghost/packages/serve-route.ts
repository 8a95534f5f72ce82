import { HttpError } from '../../../http/errors.js';
import { answeredNotModified, redirect, sendJson, sendStreamed } from '../../../http/answer/index.js';
import type { ImghostContext } from '../context.js';
import { bucketFailureToHttp } from '../storage/object-storage.js';
import { parseRange } from '../../../http/byte-range.js';
import { isPackageFileName } from '../../../lib/package-names.js';
import { SHA256, type PackageStore } from './package-store.js';

/** The bytes under a hash never change (RFC 8246). */
export const PACKAGE_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/**
 * A redirect to STORAGE_PUBLIC_URL is checked with us on every use: a shared cache
 * that kept it would go on sending launchers to a package an administrator removed
 * (which must answer 410 at once).
 */
export const PACKAGE_REDIRECT_CACHE_CONTROL = 'no-cache';

export const packageNotFound = () => new HttpError(404, 'NOT_FOUND', 'Package not found');
const packageGone = () => new HttpError(410, 'GONE', 'This package was removed by an administrator');

/**
 * GET/HEAD /pkg/:sha256/:file, with single Range requests so that a download can
 * resume. A GET opens the file once (package-store.ts: open and the removal marker
 * side by side, the size remembered per hash) and streams from that descriptor in
 * reads of up to READ_CHUNK_BYTES (a bucket object: piped, http/answer/streamed.ts).
 */
export function servePackage(store: PackageStore) {
  const serve = async (ctx: ImghostContext): Promise<void> => {
    const sha256 = ctx.params.sha256 ?? '';
    const name = ctx.params.file ?? '';
    if (!SHA256.test(sha256) || !isPackageFileName(name)) throw packageNotFound();
    const head = ctx.method === 'HEAD';
    const found = head ? await store.find(sha256) : await store.open(sha256);
    if (found === 'removed') throw packageGone();
    if (!found) throw packageNotFound();
    const opened = 'read' in found ? found : undefined;
    // The client left while we looked: its 'close' has been, nothing would ever let go of the file.
    if (ctx.res.destroyed) {
      opened?.release();
      return;
    }
    const location = store.redirectUrl(sha256);
    if (location !== undefined) {
      opened?.release();
      return redirect(ctx, location, 302, undefined, PACKAGE_REDIRECT_CACHE_CONTROL);
    }
    let answer: PlannedAnswer | null | undefined;
    try {
      answer = planAnswer(ctx, found, name);
    } finally {
      // Nothing to stream (a 304, a 416, a HEAD): what open() holds is ours to let go.
      if (opened && !answer) opened.release();
    }
    if (!answer || !opened) return;
    const { start, end } = answer;
    if (opened.send) {
      const send = opened.send;
      return sendStreamed(ctx, answer.status, answer.head, (res) => send(res, start, end, (error) => ctx.log.warn(STREAM_FAILED, { err: error })));
    }
    // Opened before the head is written, so a bucket that fails is still a clean 503.
    const stream = await opened.read(start, end);
    if (ctx.res.destroyed) {
      stream?.destroy();
      return;
    }
    if (!stream) throw (await store.isRemoved(sha256)) ? packageGone() : packageNotFound();
    await sendStreamed(ctx, answer.status, answer.head, stream, STREAM_FAILED);
  };
  return async (ctx: ImghostContext): Promise<void> => {
    try {
      await serve(ctx);
    } catch (error) {
      throw bucketFailureToHttp(error, false);
    }
  };
}

interface PlannedAnswer {
  status: 200 | 206;
  head: (string | number)[];
  start: number;
  end: number;
}

/** The answer's status, head and byte range; null when it is already answered (304, HEAD). */
function planAnswer(ctx: ImghostContext, found: { etag: string; size: number }, name: string): PlannedAnswer | null {
  const common = ['ETag', found.etag, 'Cache-Control', PACKAGE_CACHE_CONTROL, 'Accept-Ranges', 'bytes'];
  if (answeredNotModified(ctx, found.etag, common)) return null;
  const ifRange = ctx.req.headers['if-range'];
  // If-Range with anything but our ETag (a date, an old tag) asks for the whole file.
  const range = ifRange === undefined || ifRange === found.etag ? parseRange(ctx.req.headers.range, found.size) : null;
  if (range === 'unsatisfiable') {
    throw new HttpError(416, 'RANGE_NOT_SATISFIABLE', 'Range not satisfiable', { headers: { 'Content-Range': `bytes */${found.size}` } });
  }
  const start = range?.start ?? 0;
  const end = range?.end ?? found.size - 1;
  const head = [
    ...common,
    'Content-Type', 'application/zip',
    'Content-Disposition', `attachment; filename="${name}"`,
    'X-Content-Type-Options', 'nosniff',
    'Content-Length', String(end - start + 1),
  ];
  if (range) head.push('Content-Range', `bytes ${start}-${end}/${found.size}`);
  const status = range ? 206 : 200;
  if (ctx.method === 'HEAD') {
    void sendStreamed(ctx, status, head);
    return null;
  }
  return { status, head, start, end };
}

const STREAM_FAILED = 'package stream failed';

/** DELETE /api/packages/:sha256 (upload token): the site removes a version's file for malware. */
export function removePackage(store: PackageStore, checkToken: (authorization: string | undefined) => void) {
  return async (ctx: ImghostContext): Promise<void> => {
    checkToken(ctx.req.headers.authorization);
    const sha256 = ctx.params.sha256 ?? '';
    if (!SHA256.test(sha256)) throw packageNotFound();
    try {
      await store.remove(sha256);
    } catch (error) {
      throw bucketFailureToHttp(error, false);
    }
    sendJson(ctx, 200, { success: true });
  };
}
