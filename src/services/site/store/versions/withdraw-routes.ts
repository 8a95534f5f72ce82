import { sendOk } from '../../../../http/answer/index.js';
import { runNamed } from '../../../../db/queries.js';
import { requireAdmin, requireUser } from '../../auth/guards.js';
import type { SiteContext, SiteDeps } from '../../context.js';
import type { ImageHostClient } from '../../image-host/client.js';
import { versionRecord, versionRowOf } from './records.js';
import { takeVersionOff } from './version-writes.js';

/** POST /apps/api/plugins/:id/versions/:version/withdraw (owner or administrator): {success, version}. */
export function withdrawHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    const off = await takeVersionOff(deps.sql, ctx.params.id!, ctx.params.version!, user, 'withdrawn');
    const [row] = await runNamed(deps.sql, 'store/versions/find-version', { plugin_id: off.pluginId, version: off.version });
    // Versions are never deleted (withdrawn and removed are statuses), so the one just taken off is there.
    if (row === undefined) throw new Error(`version ${off.version} of ${off.pluginId} is gone after it was withdrawn`);
    sendOk(ctx, { version: versionRecord(versionRowOf(row)) });
  };
}

/**
 * DELETE /apps/api/plugins/:id/versions/:version (administrators, for malware):
 * {success}. The version is removed in the database first, and its bytes marked
 * removed unless another live version of any plugin has them (sql/007: from then on
 * no version with them is inserted or goes live); then the image host deletes the
 * file (its URL answers 410). Repeating the request repeats the deletion, so a 502
 * from the image host is retried by asking again.
 */
export function removeHandler(deps: SiteDeps, client: ImageHostClient) {
  return async (ctx: SiteContext) => {
    const admin = requireAdmin(ctx);
    const off = await takeVersionOff(deps.sql, ctx.params.id!, ctx.params.version!, admin, 'removed');
    if (off.bytesRemoved) await client.removePackage(off.sha256, ctx.id);
    sendOk(ctx);
  };
}
