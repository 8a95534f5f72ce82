import { badRequest } from '../../../http/errors.js';
import { integerParam, singleParam } from '../../../http/query-params.js';
import { sendJson } from '../../../http/answer/index.js';
import { runNamed } from '../../../db/queries.js';
import type { SiteContext, SiteDeps } from '../context.js';
import { requireAdmin } from '../auth/guards.js';
import { PLUGIN_ID } from '../plugin-id.js';

export const DEFAULT_AUDIT_LIMIT = 50;
export const MAX_AUDIT_LIMIT = 200;
export const MAX_AUDIT_OFFSET = 1_000_000;
const MAX_FILTER_LENGTH = 128;

interface StoredEntry {
  id: number;
  actor_name: string;
  action: string;
  target_type: string;
  target_plugin: string | null;
  target_user: string | null;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  at: string;
}

function filterParam(query: URLSearchParams, name: string): string | undefined {
  const value = singleParam(query, name)?.trim();
  if (value === undefined || value === '') return undefined;
  if (value.length > MAX_FILTER_LENGTH) throw badRequest(`${name} is too long`, name);
  return value;
}

/**
 * GET /apps/api/audit?plugin=&user=&limit=&offset= (administrators): {success,
 * entries: [{id, actor, action, target, before, after, at}], total}, newest first.
 * `plugin` is a plugin id (any case), `user` the acting administrator's username.
 */
export function auditHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    requireAdmin(ctx);
    const plugin = filterParam(ctx.query, 'plugin');
    const user = filterParam(ctx.query, 'user');
    const limit = integerParam(ctx.query, 'limit', { fallback: DEFAULT_AUDIT_LIMIT, min: 1, max: MAX_AUDIT_LIMIT });
    const offset = integerParam(ctx.query, 'offset', { fallback: 0, min: 0, max: MAX_AUDIT_OFFSET });
    // A malformed plugin id names no plugin: an empty page, not an error.
    if (plugin !== undefined && !PLUGIN_ID.test(plugin)) {
      sendJson(ctx, 200, { success: true, entries: [], total: 0 }, { 'Cache-Control': 'no-store' });
      return;
    }
    const [row] = await runNamed(deps.sql, 'audit/page', { limit, offset, plugin_id: plugin ?? null, actor: user ?? null });
    const entries = (JSON.parse(row!.entries) as StoredEntry[]).map((entry) => ({
      id: entry.id,
      actor: entry.actor_name,
      action: entry.action,
      target: target(entry),
      before: entry.before,
      after: entry.after,
      at: new Date(entry.at).toISOString(),
    }));
    sendJson(ctx, 200, { success: true, entries, total: Number(row!.total) }, { 'Cache-Control': 'no-store' });
  };
}

function target(entry: StoredEntry): Record<string, string> {
  const shape: Record<string, string> = { type: entry.target_type };
  if (entry.target_plugin !== null) shape.plugin = entry.target_plugin;
  if (entry.target_user !== null) shape.user = entry.target_user;
  return shape;
}
