import { HttpError } from '../../../http/errors.js';
import { rateLimited } from '../../../http/rate-limited.js';
import { sendJson } from '../../../http/answer/index.js';
import type { SharedRateLimiter } from '../../../db/shared-rate-limiter.js';
import { inTransaction, runNamed } from '../../../db/queries.js';
import { requireUser } from '../auth/guards.js';
import type { SessionUser, SiteContext, SiteDeps } from '../context.js';
import { findVisiblePlugin, pluginNotFound } from '../store/visibility.js';
import { notify } from '../notifications/notify.js';
import { RATING_WRITES_PER_MINUTE } from './limits.js';
import { readRatingsPage } from './ratings-reads.js';
import { parseRatingInput } from './validation.js';

/**
 * Counts one of the user's rating writes (rate, change or delete, over all plugins);
 * 429 with Retry-After past RATING_WRITES_PER_MINUTE. A write refused by a rule
 * before this (its body, the plugin, own plugin) costs nothing.
 */
async function countWrite(writes: SharedRateLimiter, user: SessionUser): Promise<void> {
  const decision = await writes.hit(user.id);
  if (!decision.allowed) throw rateLimited(decision, `At most ${RATING_WRITES_PER_MINUTE} rating changes a minute; try again shortly`);
}

/**
 * PUT /apps/api/plugins/:id/ratings {stars, comment?}: adds or changes the caller's
 * rating of an approved plugin; {success, rating, avg, count, distribution}.
 * 404 for a plugin the caller cannot see, or one not approved; 403 for its own
 * submitter (checked before the status, since the submitter sees it anyway).
 * A rating of a rater an administrator hid stays hidden (sql/003); its answer
 * says `hidden: true`.
 */
export function rateHandler(deps: SiteDeps, writes: SharedRateLimiter) {
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    const input = parseRatingInput(ctx.body);
    const plugin = await findVisiblePlugin(deps.sql, ctx.params.id!, user);
    if (plugin.submitterId === user.id) throw new HttpError(403, 'FORBIDDEN', 'You cannot rate your own plugin');
    if (plugin.status !== 'approved') throw pluginNotFound();
    await countWrite(writes, user);
    // The upsert's trigger holds the plugin row's lock until commit, so the page read
    // after it sees every rating committed before ours, and none can slip in between.
    const page = await inTransaction(deps.sql, async (tx) => {
      const [written] = await runNamed(tx, 'ratings/upsert', { plugin_id: plugin.id, user_id: user.id, stars: input.stars, comment: input.comment });
      // A new rating is news to the author once a day per rater (deleting and rating
      // again is not news), and never while hidden: the author may not see it.
      if (written?.created && !written.hidden && (await runNamed(tx, 'ratings/claim-notice', { plugin_id: plugin.id, user_id: user.id })).length > 0) {
        await notify(tx, {
          recipients: [plugin.submitterId],
          kind: 'rating.created',
          plugin: plugin.id,
          actorId: user.id,
          message: `${user.username} rated your plugin ${plugin.id} ${input.stars} of 5`,
        });
      }
      return readRatingsPage(tx, plugin.id, { limit: 0, offset: 0, viewerId: user.id });
    });
    sendJson(ctx, 200, { success: true, rating: page.mine, ...page.stats }, { 'Cache-Control': 'no-store' });
  };
}

/**
 * DELETE /apps/api/plugins/:id/ratings: deletes the caller's rating and its replies;
 * {success, avg, count, distribution} after it. 404 when there is none. A hidden
 * rating's moderation record stays (sql/003_ratings.sql).
 */
export function unrateHandler(deps: SiteDeps, writes: SharedRateLimiter) {
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    const plugin = await findVisiblePlugin(deps.sql, ctx.params.id!, user);
    await countWrite(writes, user);
    const page = await inTransaction(deps.sql, async (tx) => {
      const deleted = await runNamed(tx, 'ratings/delete', { plugin_id: plugin.id, user_id: user.id });
      if (deleted.length === 0) return null;
      return readRatingsPage(tx, plugin.id, { limit: 0, offset: 0, viewerId: null });
    });
    if (!page) throw new HttpError(404, 'NOT_FOUND', 'You have not rated this plugin');
    sendJson(ctx, 200, { success: true, ...page.stats }, { 'Cache-Control': 'no-store' });
  };
}
