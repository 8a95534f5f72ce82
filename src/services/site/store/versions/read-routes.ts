import { sendPrepared } from '../../../../http/answer/index.js';
import { notFound } from '../../../../http/errors.js';
import { runNamed } from '../../../../db/queries.js';
import type { SiteContext, SiteDeps } from '../../context.js';
import type { KeptAnswers } from '../../kept-answers.js';
import { findVisiblePlugin, isOwnerOrAdmin, type Viewer } from '../visibility.js';
import { MAX_LISTED_VERSIONS } from './limits.js';
import { ownVersionRecord, versionRecord, versionRowOf } from './records.js';
import { couldBeVersion } from './version-number.js';

// GET /apps/api/plugins/:id/versions and .../versions/:version. Visitors see a
// visible plugin's approved versions; its author and administrators see all of
// them, with their state. What the caller may not see is 404. Answers are kept per
// store generation (kept-answers.ts; every change to a version moves it,
// sql/007), the visitors' shared by all visitors.

const versionNotFound = () => notFound('Version not found');

export function listVersionsHandler(deps: SiteDeps, kept: KeptAnswers) {
  return async (ctx: SiteContext) => {
    const id = ctx.params.id!;
    const question = JSON.stringify(['versions', id.toLowerCase()]);
    const versions = async (viewer: Viewer) => {
      const plugin = await findVisiblePlugin(deps.sql, id, viewer);
      const all = isOwnerOrAdmin(plugin, viewer);
      const rows = await runNamed(deps.sql, 'store/versions/list-versions', { plugin_id: plugin.id, all, limit: MAX_LISTED_VERSIONS });
      return { success: true, versions: rows.map((row) => versionRecord(versionRowOf(row))) };
    };
    sendPrepared(ctx, await kept.answer({ shared: question, own: question }, ctx.locals.user, versions, ctx));
  };
}

export function getVersionHandler(deps: SiteDeps, kept: KeptAnswers) {
  return async (ctx: SiteContext) => {
    const id = ctx.params.id!;
    const version = ctx.params.version!;
    const question = JSON.stringify(['version', id.toLowerCase(), version]);
    const found = async (viewer: Viewer) => {
      const plugin = await findVisiblePlugin(deps.sql, id, viewer);
      if (!couldBeVersion(version)) throw versionNotFound();
      const [described] = await runNamed(deps.sql, 'store/versions/find-version', { plugin_id: plugin.id, version });
      const own = isOwnerOrAdmin(plugin, viewer);
      if (!described || (described.status !== 'approved' && !own)) throw versionNotFound();
      const row = versionRowOf(described);
      // Its manifest, permissions and checks for its author and administrators only.
      return { success: true, version: { ...(own ? ownVersionRecord(row) : versionRecord(row)), files: row.files ?? [] } };
    };
    sendPrepared(ctx, await kept.answer({ shared: question, own: question }, ctx.locals.user, found, ctx));
  };
}
