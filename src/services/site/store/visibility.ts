import { notFound } from '../../../http/errors.js';
import { runNamed } from '../../../db/queries.js';
import type { Sql } from '../../../db/pool.js';
import type { Viewer } from '../context.js';
import { PLUGIN_ID } from '../plugin-id.js';

// Who may see a plugin. One rule, used by every route that reads or writes through
// a plugin id (detail, lists, ratings, replies, install link, manifest, clicks):
//   - visitors see approved plugins;
//   - a logged-in user also sees the plugins they submitted, in any status;
//   - administrators see everything.
// Anything else is 404 NOT_FOUND, never 403, so the ids of hidden plugins do not leak.
// Lists apply the same rule in SQL through listVisibility() (see
// sql/queries/store/list-*.sql); install link, manifest and install click further
// require `approved` whoever asks (docs/api.md, "Install link"). Edits are the
// one exception to 404: the API makes editing another user's plugin 403, whatever its
// status (see plugin-writes.ts).

export type PluginStatus = 'pending' | 'approved' | 'rejected';

/** A plugins.status as PostgreSQL answers it (text; the domain plugin_status of sql/002_plugins.sql allows these three). */
export function pluginStatusOf(status: string): PluginStatus {
  if (status === 'pending' || status === 'approved' || status === 'rejected') return status;
  throw new Error(`plugin status ${JSON.stringify(status)} is none of pending, approved, rejected`);
}

/** What the rule needs to know about a plugin. */
export interface PluginAccess {
  id: string;
  status: PluginStatus;
  /** users.id of the submitter (bigint as a string). */
  submitterId: string;
}

export type { Viewer };

export { PLUGIN_ID };

export function canSee(plugin: PluginAccess, viewer: Viewer): boolean {
  if (plugin.status === 'approved') return true;
  if (!viewer) return false;
  return viewer.admin || viewer.id === plugin.submitterId;
}

/** The submitter and administrators: who sees `pendingUpdate` and `review`, and who may edit. */
export function isOwnerOrAdmin(plugin: PluginAccess, viewer: Viewer): boolean {
  return viewer !== null && (viewer.admin || viewer.id === plugin.submitterId);
}

/** The parameters of the same rule in a list query: `status = 'approved' or submitter_id = $viewer or $seesAll`. */
export function listVisibility(viewer: Viewer): { viewerId: string | null; seesAll: boolean } {
  return { viewerId: viewer?.id ?? null, seesAll: viewer?.admin === true };
}

export function pluginNotFound() {
  return notFound('Plugin not found');
}

/**
 * The plugin named by `id` (compared case-insensitively, as ids are unique that
 * way) when the viewer may see it; 404 otherwise. `approvedOnly` is for the install
 * link, manifest and click, which exist for approved plugins alone.
 */
export async function findVisiblePlugin(
  sql: Sql,
  id: string,
  viewer: Viewer,
  options: { approvedOnly?: boolean } = {},
): Promise<PluginAccess> {
  if (!PLUGIN_ID.test(id)) throw pluginNotFound();
  const [row] = await runNamed(sql, 'store/find-plugin-access', { plugin_id: id });
  if (!row) throw pluginNotFound();
  const plugin: PluginAccess = { id: row.id, status: pluginStatusOf(row.status), submitterId: row.submitter_id };
  if (options.approvedOnly ? plugin.status !== 'approved' : !canSee(plugin, viewer)) throw pluginNotFound();
  return plugin;
}
