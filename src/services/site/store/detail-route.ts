import { sendPrepared } from '../../../http/answer/index.js';
import { runNamed } from '../../../db/queries.js';
import type { SiteContext, SiteDeps } from '../context.js';
import { findPluginRecord } from './plugin-reads.js';
import { pluginRecord, pluginRowOf } from './records.js';
import type { KeptAnswers } from '../kept-answers.js';
import { canSee, isOwnerOrAdmin, pluginNotFound, type Viewer } from './visibility.js';
import { addPackages } from './versions/package-review.js';
import { addDownloadWarnings } from './download-hosts.js';
import { addPackageCheck, findPackageCheck } from './package-checks/check-record.js';

export const MAX_RELATED = 6;

/**
 * GET /apps/api/plugins/:id: {success, plugin}, and `related` when asked for
 * (`include=related` or `related=1`): up to 6 approved plugins, most shared tags
 * first, then the same submitter, never the plugin itself.
 */
export function detailHandler(deps: SiteDeps, keptAnswers: KeptAnswers) {
  return async (ctx: SiteContext) => {
    const user = ctx.locals.user;
    const id = ctx.params.id!;
    const related = wantsRelated(ctx.query);
    const detail = async (viewer: Viewer) => {
      const row = await findPluginRecord(deps.sql, id);
      if (!row || !canSee({ id: row.id, status: row.status, submitterId: String(row.submitter_id) }, viewer)) throw pluginNotFound();
      const plugin = pluginRecord(row, viewer);
      const full = isOwnerOrAdmin({ id: row.id, status: row.status, submitterId: String(row.submitter_id) }, viewer);
      // Its author and administrators see the hosted files (versions/package-review.ts).
      if (full) {
        await addPackages(deps.sql, row, plugin);
        addDownloadWarnings(plugin, deps.config.imageHostPublicUrl);
      }
      // The outside link's check: all of it for them, a changed download for everyone.
      addPackageCheck(plugin, await findPackageCheck(deps.sql, row.id), full);
      const body: Record<string, unknown> = { success: true, plugin };
      if (related) {
        const rows = await runNamed(deps.sql, 'store/related-plugins', {
          plugin_id: row.id, tags: row.tags.map((tag) => tag.toLowerCase()), submitter_id: row.submitter_id, limit: MAX_RELATED,
        });
        body.related = rows.map((item) => pluginRecord(pluginRowOf(item), viewer));
      }
      return body;
    };
    // Kept per store generation (kept-answers.ts): whoever sees what a visitor sees
    // gets the visitors' bytes, an author or administrator their own; a 404 is
    // thrown, never kept.
    const question = JSON.stringify(['detail', id.toLowerCase(), related]);
    sendPrepared(ctx, await keptAnswers.answer({ shared: question, own: question }, user, detail, ctx));
  };
}

function wantsRelated(query: URLSearchParams): boolean {
  const related = query.get('related');
  if (related === '1' || related === 'true') return true;
  return query.getAll('include').some((value) => value.split(',').some((item) => item.trim() === 'related'));
}
