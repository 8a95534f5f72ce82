import type { IncomingMessage } from 'node:http';
import { HttpError, payloadTooLarge } from '../../../http/errors.js';
import { declaresMoreThan } from '../../../http/multipart/index.js';
import { refuseRestOfBody } from '../../../http/refuse-body.js';
import { sendJson } from '../../../http/answer/index.js';
import type { TaskQueue } from '../../../lib/task-queue.js';
import { wouldAcceptUpload } from '../continue-check.js';
import type { ImghostContext } from '../context.js';
import { bucketFailureToHttp } from '../storage/object-storage.js';
import { insufficientStorage, isDiskFull } from '../storage/disk-errors.js';
import { createTokenCheck } from '../images/upload-token.js';
import { packageUrl } from '../../../lib/package-names.js';
import type { PackageStore } from './package-store.js';
import { receivePackage, type ReceivedPackage } from './receive-package.js';
import { inspectZip, ZipRefused, type ZipInspection } from './zip-inspect.js';

export const PACKAGES_PATH = '/api/packages';

/** What a ZIP upload may be sent as; browsers and tools differ. */
const ZIP_TYPES = new Set(['application/zip', 'application/x-zip-compressed', 'application/octet-stream']);

export interface PackageUploadOptions {
  store: PackageStore;
  /** Inspections inflate every entry: a few at a time, the rest wait or are refused. */
  inspections: TaskQueue;
  maxBytes: number;
  token: string | undefined;
}

const refusedFile = (reason: string) => new HttpError(400, 'VALIDATION_FAILED', `Not an acceptable package: ${reason}`, { field: 'file' });
const busy = () => new HttpError(503, 'UNAVAILABLE', 'Server busy, try again shortly', { headers: { 'Retry-After': '5' } });

/** Token, type and declared size: checked before a body byte is read. Throws the refusal. */
export function packagePrecheck(options: PackageUploadOptions) {
  const checkToken = createTokenCheck(options.token);
  return (req: IncomingMessage): void => {
    checkToken(req.headers.authorization);
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!ZIP_TYPES.has(type)) {
      throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the ZIP itself as the body, with Content-Type: application/zip', { field: 'file' });
    }
    if (declaresMoreThan(req, options.maxBytes)) throw payloadTooLarge(`Package is larger than ${options.maxBytes} bytes`);
  };
}

/**
 * What an upload and an inspection share: token, type and size checked, the body
 * streamed to a temp file (hashed and counted), then inspected. On any refusal
 * the temp file is gone before this throws; on success the caller owns it.
 */
export async function receiveAndInspect(
  ctx: ImghostContext,
  options: PackageUploadOptions,
  precheck: (req: IncomingMessage) => void,
): Promise<{ received: ReceivedPackage; inspection: ZipInspection }> {
  precheck(ctx.req);
  const received = await receivePackage(ctx.req, options.store.temps, options.maxBytes);
  try {
    if (received.size === 0) throw refusedFile('the body is empty');
    if (await options.store.isRemoved(received.sha256)) throw refusedFile('an administrator removed this file');
    return { received, inspection: await options.inspections.run(() => inspectZip(received.temp), busy) };
  } catch (error) {
    await options.store.temps.discard(received.temp);
    throw error instanceof ZipRefused ? refusedFile(error.reason) : error;
  }
}

/**
 * POST /api/packages: the body is the ZIP. It streams to a temp file (hashed and
 * counted on the way), is inspected there (zip-inspect.ts), then kept once per
 * SHA-256. Whatever fails, the temp file is removed and nothing is kept.
 */
export function uploadPackage(options: PackageUploadOptions) {
  const precheck = packagePrecheck(options);

  async function store(ctx: ImghostContext): Promise<void> {
    const { received, inspection } = await receiveAndInspect(ctx, options, precheck);
    try {
      await options.store.commit(received.temp, received.sha256);
    } catch (error) {
      await options.store.temps.discard(received.temp);
      throw error;
    }
    sendJson(ctx, 201, {
      success: true,
      data: {
        sha256: received.sha256,
        size: received.size,
        url: packageUrl(received.sha256, ctx.query.get('name')),
        ...inspectionReport(inspection),
      },
    });
  }

  return async (ctx: ImghostContext): Promise<void> => {
    try {
      await store(ctx);
    } catch (error) {
      throw isDiskFull(error) ? insufficientStorage(false, error) : bucketFailureToHttp(error, false);
    } finally {
      refuseRestOfBody(ctx);
    }
  };
}

/** What an upload's answer and an inspection's (inspect-route.ts) report of a package's contents. */
export function inspectionReport(inspection: ZipInspection) {
  return {
    entries: inspection.entries,
    entryCount: inspection.entryCount,
    // Reported, never refused here: the site enforces (issue 31).
    manifest: inspection.contents.manifest,
    manifestProblem: inspection.contents.manifestProblem,
    findings: inspection.contents.findings,
    files: inspection.contents.files,
  };
}

/** For `Expect: 100-continue`: see continue-check.ts. */
export function packageUploadWouldAccept(options: PackageUploadOptions): (req: IncomingMessage) => boolean {
  return wouldAcceptUpload(PACKAGES_PATH, packagePrecheck(options));
}
