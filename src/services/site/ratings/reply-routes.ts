import { HttpError } from '../../../http/errors.js';
import { rateLimited } from '../../../http/rate-limited.js';
import { sendJson, sendOk } from '../../../http/answer/index.js';
import type { SharedRateLimiter } from '../../../db/shared-rate-limiter.js';
import { inTransaction, runNamed } from '../../../db/queries.js';
import type { RatingsCreateReplyRow } from '../../../db/query-rows.js';
import { notify } from '../notifications/notify.js';
import { requireUser } from '../auth/guards.js';
import type { SiteContext, SiteDeps } from '../context.js';
import { findVisiblePlugin } from '../store/visibility.js';
import { replyRecord } from './records.js';
import { isReplyId, parseReplyInput } from './validation.js';
import { couldBeUsername } from '../auth/usernames.js';
import { REPLIES_PER_MINUTE } from './limits.js';

/** PostgreSQL's foreign_key_violation: the rating was deleted while the reply was written. */
const FOREIGN_KEY_VIOLATION = '23503';

const noRating = () => new HttpError(404, 'NOT_FOUND', 'That user has not rated this plugin');
const noReply = () => new HttpError(404, 'NOT_FOUND', 'Reply not found');

/**
 * POST /apps/api/plugins/:id/ratings/:ratingUser/replies {body} (or {comment}):
 * any logged-in user answers the rating that :ratingUser wrote on a plugin the
 * caller can see; 201 {success, reply}. 404 when that user has no rating there,
 * or a hidden one and the caller is neither its rater nor an administrator (the
 * same answer, so it does not tell that the rating exists); a reply to a hidden
 * rating notifies no one. 429 past REPLIES_PER_MINUTE replies a minute.
 */
export function createReplyHandler(deps: SiteDeps, replies: SharedRateLimiter) {
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    const body = parseReplyInput(ctx.body);
    const plugin = await findVisiblePlugin(deps.sql, ctx.params.id!, user);
    const ratingUser = ctx.params.ratingUser!;
    if (!couldBeUsername(ratingUser)) throw noRating();
    const decision = await replies.hit(user.id);
    if (!decision.allowed) throw rateLimited(decision, `At most ${REPLIES_PER_MINUTE} replies a minute; try again shortly`);
    let created: RatingsCreateReplyRow[];
    try {
      // The reply and its notifications (the rater, and the plugin's author) commit together.
      created = await inTransaction(deps.sql, async (tx) => {
        const rows = await runNamed(tx, 'ratings/create-reply', { plugin_id: plugin.id, rating_user: ratingUser, user_id: user.id, body, is_admin: user.admin });
        if (rows[0] && !rows[0].hidden) {
          await notify(tx, {
            recipients: [rows[0].rating_user_id, plugin.submitterId],
            kind: 'reply.created',
            plugin: plugin.id,
            actorId: user.id,
            message: `${user.username} replied to a rating of ${plugin.id}`,
          });
        }
        return rows;
      });
    } catch (error) {
      if ((error as { code?: unknown }).code === FOREIGN_KEY_VIOLATION) throw noRating();
      throw error;
    }
    const [reply] = created;
    if (!reply) throw noRating();
    const record = replyRecord({ id: Number(reply.id), user: user.username, avatar: user.avatar, body, createdAt: reply.created_at.toISOString() });
    sendJson(ctx, 201, { success: true, reply: record }, { 'Cache-Control': 'no-store' });
  };
}

/**
 * DELETE /apps/api/plugins/:id/ratings/replies/:replyId: by the reply's author or
 * an administrator (403 for anyone else); 404 when the reply does not exist, is not
 * on this plugin, the plugin is hidden from the caller, or the rating it answers is
 * hidden and the caller is neither its rater nor an administrator.
 */
export function deleteReplyHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    const plugin = await findVisiblePlugin(deps.sql, ctx.params.id!, user);
    const replyId = ctx.params.replyId!;
    if (!isReplyId(replyId)) throw noReply();
    const [reply] = await runNamed(deps.sql, 'ratings/find-reply', { reply_id: replyId, plugin_id: plugin.id });
    if (!reply || (reply.hidden && reply.rating_user_id !== user.id && !user.admin)) throw noReply();
    if (reply.user_id !== user.id && !user.admin) throw new HttpError(403, 'FORBIDDEN', 'Only its author or an administrator may delete a reply');
    const deleted = await runNamed(deps.sql, 'ratings/delete-reply', { reply_id: replyId, plugin_id: plugin.id });
    if (deleted.length === 0) throw noReply();
    sendOk(ctx);
  };
}
