import { HttpError, validationFailed } from '../../../http/errors.js';
import { isObject, own } from '../../../lib/json-object.js';
import { integerParam } from '../../../http/query-params.js';
import { sendJson } from '../../../http/answer/index.js';
import { runNamed } from '../../../db/queries.js';
import type { WebhooksFindRow } from '../../../db/query-rows.js';
import { requireUser } from '../auth/guards.js';
import type { SiteContext, SiteDeps, SiteHandler } from '../context.js';
import { shownReason } from './failure-reasons.js';
import { newWebhookSecret } from './signing.js';
import { validateWebhookUrl } from './url-rules.js';

export const DEFAULT_DELIVERIES_LIMIT = 20;
export const MAX_DELIVERIES_LIMIT = 50;
/** A PUT body is {url, rotateSecret}: the longest URL, even all \u escapes, fits. */
export const WEBHOOK_BODY_LIMIT = 16 * 1024;

// Per-user answers, one of them with a secret: no cache may keep any.
const NO_STORE = { 'Cache-Control': 'no-store' };


const shown = (row: WebhooksFindRow) => ({ url: row.url, createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString() });

/** GET /apps/api/webhook: {success, webhook: {url, createdAt, updatedAt} | null}; never the secret. */
export function getWebhookHandler(deps: SiteDeps): SiteHandler {
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    const [row] = await runNamed(deps.sql, 'webhooks/find', { user_id: user.id });
    sendJson(ctx, 200, { success: true, webhook: row ? shown(row) : null }, NO_STORE);
  };
}

/**
 * PUT /apps/api/webhook {url, rotateSecret?}: sets the caller's webhook. The secret
 * is made when the webhook is first set, or anew on rotateSecret: true, and shown
 * in that answer only.
 */
export function putWebhookHandler(deps: SiteDeps): SiteHandler {
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    const body = ctx.body;
    if (!isObject(body)) throw new HttpError(400, 'BAD_REQUEST', 'Expected a JSON object {url}');
    const stored = validateWebhookUrl(own(body, 'url'), deps.config.webhookPorts);
    const rotateSecret = own(body, 'rotateSecret');
    if (rotateSecret !== undefined && typeof rotateSecret !== 'boolean') throw validationFailed('rotateSecret', 'rotateSecret must be true or false');
    const rotate = rotateSecret === true;
    const [row] = await runNamed(deps.sql, 'webhooks/upsert', { user_id: user.id, url: stored, secret: newWebhookSecret(), rotate });
    const webhook: Record<string, unknown> = shown(row!);
    if (row!.created || rotate) webhook.secret = row!.secret;
    sendJson(ctx, 200, { success: true, webhook }, NO_STORE);
  };
}

/** DELETE /apps/api/webhook: removes it (if any) and cancels its pending deliveries. */
export function deleteWebhookHandler(deps: SiteDeps): SiteHandler {
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    await runNamed(deps.sql, 'webhooks/delete', { user_id: user.id });
    sendJson(ctx, 200, { success: true }, NO_STORE);
  };
}

interface StoredDelivery {
  id: number;
  notification_id: number;
  kind: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
}

const iso = (value: string | null) => (value === null ? null : new Date(value).toISOString());

/** GET /apps/api/webhook/deliveries?limit&offset: the caller's delivery history, newest first. */
export function listDeliveriesHandler(deps: SiteDeps): SiteHandler {
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    const limit = integerParam(ctx.query, 'limit', { fallback: DEFAULT_DELIVERIES_LIMIT, min: 1, max: MAX_DELIVERIES_LIMIT });
    const offset = integerParam(ctx.query, 'offset', { fallback: 0, min: 0, max: 1_000_000 });
    const [row] = await runNamed(deps.sql, 'webhooks/deliveries-page', { user_id: user.id, limit, offset });
    const deliveries = (JSON.parse(row!.deliveries) as StoredDelivery[]).map((d) => ({
      id: d.id,
      notificationId: d.notification_id,
      kind: d.kind,
      status: d.status,
      attempts: d.attempts,
      lastStatusCode: d.last_status_code,
      lastError: shownReason(d.last_error),
      nextAttemptAt: iso(d.next_attempt_at),
      deliveredAt: iso(d.delivered_at),
      createdAt: iso(d.created_at),
    }));
    sendJson(ctx, 200, { success: true, deliveries, total: Number(row!.total) }, NO_STORE);
  };
}
