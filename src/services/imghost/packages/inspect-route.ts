import { refuseRestOfBody } from '../../../http/refuse-body.js';
import { sendJson } from '../../../http/answer/index.js';
import type { ImghostContext } from '../context.js';
import { insufficientStorage, isDiskFull } from '../storage/disk-errors.js';
import { inspectionReport, packagePrecheck, receiveAndInspect, type PackageUploadOptions } from './upload-route.js';

export const PACKAGE_INSPECT_PATH = '/api/packages/inspect';

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
    const { received, inspection } = await receiveAndInspect(ctx, options, precheck);
    // Gone before the answer (a refusal has removed it already).
    await options.store.temps.discard(received.temp);
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
