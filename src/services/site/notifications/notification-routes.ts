import { HttpError, validationFailed } from '../../../http/errors.js';
import { isObject, own } from '../../../lib/json-object.js';
import { integerParam } from '../../../http/query-params.js';
import { sendJson } from '../../../http/answer/index.js';
import { runNamed } from '../../../db/queries.js';
import { requireUser } from '../auth/guards.js';
import type { SiteContext, SiteDeps } from '../context.js';

export const DEFAULT_NOTIFICATIONS_LIMIT = 20;
export const MAX_NOTIFICATIONS_LIMIT = 100;
/** Most ids one read request may name. */
export const MAX_READ_IDS = 200;
/** 200 ids of 19 digits and the JSON around them fit in a few KB: a larger body is refused unread (413). */
export const READ_BODY_LIMIT = 16 * 1024;

interface StoredNotification {
  id: number;
  kind: string;
  plugin_id: string | null;
  actor: string | null;
  message: string;
  read: boolean;
  created_at: string;
}

/**
 * GET /apps/api/notifications?limit&offset: {success, notifications: [{id, kind,
 * plugin, actor, message, read, createdAt}], unread, total}, newest first; the
 * caller's own only.
 */
export function listNotificationsHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    const limit = integerParam(ctx.query, 'limit', { fallback: DEFAULT_NOTIFICATIONS_LIMIT, min: 1, max: MAX_NOTIFICATIONS_LIMIT });
    const offset = integerParam(ctx.query, 'offset', { fallback: 0, min: 0, max: 1_000_000 });
    const [row] = await runNamed(deps.sql, 'notifications/page', { user_id: user.id, limit, offset });
    const notifications = (JSON.parse(row!.notifications) as StoredNotification[]).map((n) => ({
      id: n.id,
      kind: n.kind,
      plugin: n.plugin_id,
      actor: n.actor,
      message: n.message,
      read: n.read,
      createdAt: new Date(n.created_at).toISOString(),
    }));
    sendJson(ctx, 200, { success: true, notifications, unread: Number(row!.unread), total: Number(row!.total) }, { 'Cache-Control': 'no-store' });
  };
}

/** POST /apps/api/notifications/read {ids: [...]} or {all: true}: {success, unread}. */
export function readNotificationsHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    const body = ctx.body;
    if (!isObject(body)) throw new HttpError(400, 'BAD_REQUEST', 'Expected a JSON object with ids or all');
    const ids = own(body, 'ids');
    const all = own(body, 'all');
    let rows: Array<{ unread: string }>;
    if (all === true && ids === undefined) {
      rows = await runNamed(deps.sql, 'notifications/read-all', { user_id: user.id });
    } else if (all === undefined && Array.isArray(ids)) {
      if (ids.length > MAX_READ_IDS) throw validationFailed('ids', `ids may name at most ${MAX_READ_IDS} notifications`);
      if (!ids.every((id) => Number.isSafeInteger(id) && (id as number) > 0)) throw validationFailed('ids', 'ids must be notification ids (positive whole numbers)');
      rows = await runNamed(deps.sql, 'notifications/read-ids', { user_id: user.id, ids: ids.map(String) });
    } else {
      throw validationFailed('ids', 'Send {ids: [...]} or {all: true}');
    }
    sendJson(ctx, 200, { success: true, unread: Number(rows[0]!.unread) }, { 'Cache-Control': 'no-store' });
  };
}
