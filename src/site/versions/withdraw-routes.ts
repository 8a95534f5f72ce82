import { sendOk } from '../../http/respond.js';
import { runQuery } from '../../db/queries.js';
import { requireAdmin, requireUser } from '../auth/guards.js';
import type { SiteContext, SiteDeps } from '../context.js';
import type { PackageClient } from './package-client.js';
import { versionRecord, type VersionRow } from './records.js';
import { bytesStillLive, takeVersionOff } from './version-writes.js';

/** POST /apps/api/plugins/:id/versions/:version/withdraw (owner or administrator): {success, version}. */
export function withdrawHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    const off = await takeVersionOff(deps.sql, ctx.params.id!, ctx.params.version!, user, 'withdrawn');
    const [row] = await runQuery<VersionRow>(deps.sql, 'versions/find-version', [off.pluginId, off.version]);
    sendOk(ctx, { version: versionRecord(row!) });
  };
}

/**
 * DELETE /apps/api/plugins/:id/versions/:version (administrators, for malware):
 * {success}. The version is removed in the database first; then the image host
 * deletes the file (its URL answers 410) unless another live version of any plugin
 * has the same bytes. Repeating the request repeats the deletion, so a 502 from the
 * image host is retried by asking again.
 */
export function removeHandler(deps: SiteDeps, client: PackageClient) {
  return async (ctx: SiteContext) => {
    const admin = requireAdmin(ctx);
    const off = await takeVersionOff(deps.sql, ctx.params.id!, ctx.params.version!, admin, 'removed');
    if (!(await bytesStillLive(deps.sql, off.pluginId, off.version, off.sha256))) await client.remove(off.sha256, ctx.id);
    sendOk(ctx);
  };
}
