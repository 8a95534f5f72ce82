import { HttpError } from '../../http/errors.js';
import { refuseRestOfBody } from '../../http/refuse-body.js';
import { sendJson } from '../../http/respond.js';
import type { ImghostContext } from '../context.js';
import { insufficientStorage, isDiskFull } from '../images/disk-errors.js';
import { inspectionReport, packagePrecheck, type PackageUploadOptions } from './upload-route.js';
import { receivePackage } from './receive-package.js';
import { inspectZip, ZipRefused } from './zip-inspect.js';

export const PACKAGE_INSPECT_PATH = '/api/packages/inspect';

const refusedFile = (reason: string) => new HttpError(400, 'VALIDATION_FAILED', `Not an acceptable package: ${reason}`, { field: 'file' });
const busy = () => new HttpError(503, 'UNAVAILABLE', 'Server busy, try again shortly', { headers: { 'Retry-After': '5' } });

/**
 * POST /api/packages/inspect: the body is a ZIP, checked exactly as an upload is
 * (the same token, limits, inspection and report) and never kept: its temporary
 * copy is removed before the answer, whatever happens. The site sends the bytes
 * of a plugin's outside download link here as it fetches them (issue 33), so the
 * image host's ZIP rules apply to links as to hosted packages, and the site never
 * writes what it fetched to disk. 200 with the report; 400 for what is not an
 * acceptable package.
 */
export function inspectPackage(options: PackageUploadOptions) {
  const precheck = packagePrecheck(options);

  async function inspect(ctx: ImghostContext): Promise<void> {
    precheck(ctx.req);
    const received = await receivePackage(ctx.req, options.store.temps, options.maxBytes);
    let inspection;
    try {
      if (received.size === 0) throw refusedFile('the body is empty');
      if (await options.store.isRemoved(received.sha256)) throw refusedFile('an administrator removed this file');
      inspection = await options.inspections.run(() => inspectZip(received.temp), busy);
    } catch (error) {
      throw error instanceof ZipRefused ? refusedFile(error.reason) : error;
    } finally {
      // Gone before the answer, whatever it is.
      await options.store.temps.discard(received.temp);
    }
    sendJson(ctx, 200, {
      success: true,
      data: { sha256: received.sha256, size: received.size, ...inspectionReport(inspection) },
    });
  }

  return async (ctx: ImghostContext): Promise<void> => {
    try {
      await inspect(ctx);
    } catch (error) {
      throw isDiskFull(error) ? insufficientStorage(false, error) : error;
    } finally {
      refuseRestOfBody(ctx);
    }
  };
}
