import { prepareAnswer, sendJsonBytes, sendPrepared, servedStale } from '../../../http/answer/index.js';
import { sha256Base64 } from '../../../lib/sha256-base64.js';
import { outageCopiesOf } from '../outage-copies.js';
import type { SiteContext, SiteDeps } from '../context.js';
import { generationsOf } from '../generations.js';
import { clockOf } from '../../../db/pool.js';
import { databaseNotAnswering, STALE_AFTER_MS, STALE_DETAIL, staleFor } from '../kept-answers.js';
import { LATE, settledWithin } from '../../../lib/settled-within.js';
import { findVisiblePlugin } from '../store/visibility.js';
import { createKeptRatingsPages } from './kept-pages.js';
import { readRatingsPage } from './ratings-reads.js';
import { parsePageRequest } from './validation.js';

/**
 * The last ratings page built for each visitor's question is kept only to be served
 * while PostgreSQL cannot be reached (STALE_IF_ERROR_SECONDS, src/services/site/kept-answers.ts),
 * among the process's outage copies (src/services/site/outage-copies.ts: packed, one bound for
 * every answer a process keeps for outages). Not reused while it answers: replies
 * and the raters' names change a page without moving the store generation. Each is
 * tagged with the visibility generation (sql/008) this process last read when it was
 * built and served only while that is still the last one read (as the store's
 * answers): a plugin hidden or removed, or a rating hidden or deleted since, must not
 * come back from here; a new rating elsewhere does not stop it. A page built again
 * with the same bytes (most are: a page changes with its plugin's ratings) only says
 * when it was last current; packing it again is for pages that changed.
 */
const COPY_PREFIX = 'ratings ';

/** The answer depends on the session (myRating, hidden plugins): no shared cache may keep it. */
const NO_STORE = { 'Cache-Control': 'no-store' } as const;
/** A visitor's page as an outage copy keeps it: its head, no ETag to hash. */
const PAGE_COPY = { etag: false, cacheControl: 'no-store' } as const;

/**
 * GET /apps/api/plugins/:id/ratings?limit&offset: {success, avg, count,
 * distribution, ratings, limit, offset}, plus `myRating` (the caller's own rating
 * or null) for a logged-in caller; visitors get no `myRating` key at all. Built
 * with two queries (the visibility check and the page): per request for visitors,
 * once per caller and generations for a logged-in caller (kept-pages.ts).
 */
export function ratingsPageHandler(deps: SiteDeps) {
  const copies = outageCopiesOf(deps.sql);
  const now = clockOf(deps.sql);
  const generations = generationsOf(deps.sql);
  const keptPages = createKeptRatingsPages(deps.sql);
  const keepForOutage = (key: string, bytes: Buffer, generation: bigint | undefined) => {
    const copyKey = COPY_PREFIX + key;
    // Untagged (no generation read yet on this process), or nothing served stale at all: not kept.
    if (generation === undefined || deps.config.staleIfErrorSeconds <= 0) {
      copies.drop(copyKey);
      return;
    }
    const digest = sha256Base64(bytes);
    const kept = copies.find(copyKey);
    // A page built again with the same bytes is not packed again.
    if (kept !== undefined && kept.visibility === generation && kept.digest === digest) {
      kept.servedAt = now();
      return;
    }
    copies.keep(copyKey, { generation: 0n, visibility: generation, servedAt: now(), digest }, prepareAnswer(bytes, PAGE_COPY));
  };
  return async (ctx: SiteContext) => {
    const user = ctx.locals.user;
    const { limit, offset } = parsePageRequest(ctx.query);
    const key = `${ctx.params.id!.toLowerCase()} ${limit} ${offset}`;
    if (user !== null) {
      return sendPrepared(ctx, await keptPages.answer(ctx, user, key, async () => {
        const plugin = await findVisiblePlugin(deps.sql, ctx.params.id!, user);
        const page = await readRatingsPage(deps.sql, plugin.id, { limit, offset, viewerId: user.id });
        return { success: true, ...page.stats, ratings: page.ratings, limit, offset, myRating: page.mine };
      }));
    }
    let body: Record<string, unknown>;
    // Read before the page: a change after this read moves the generation past it.
    const generation = generations.lastRead()?.visibility;
    /** The copy kept for an outage, marked stale, when `error` lets one be served (staleFor). */
    const staleCopy = (error: unknown) => {
      const last = copies.find(COPY_PREFIX + key);
      const current = last !== undefined && last.visibility === generations.lastRead()?.visibility;
      // A page was last confirmed current when it was built: replies change it without moving the generation.
      const secondsStale = current ? staleFor(deps.sql, error, deps.config.staleIfErrorSeconds, last.servedAt) : undefined;
      return secondsStale === undefined ? undefined : servedStale(last!.packed, secondsStale, STALE_DETAIL);
    };
    const reading = (async () => {
      const plugin = await findVisiblePlugin(deps.sql, ctx.params.id!, user);
      const page = await readRatingsPage(deps.sql, plugin.id, { limit, offset, viewerId: null });
      return { success: true, ...page.stats, ratings: page.ratings, limit, offset };
    })();
    try {
      // A database that does not answer (hung) is not waited on past STALE_AFTER_MS when a copy is held.
      const read = await settledWithin(reading, STALE_AFTER_MS);
      const stale = read === LATE ? staleCopy(databaseNotAnswering()) : undefined;
      if (stale !== undefined) return sendPrepared(ctx, stale);
      body = read === LATE ? await reading : read;
    } catch (error) {
      const stale = staleCopy(error);
      if (stale === undefined) throw error;
      return sendPrepared(ctx, stale);
    }
    const bytes = Buffer.from(JSON.stringify(body));
    keepForOutage(key, bytes, generation);
    sendJsonBytes(ctx, 200, bytes, NO_STORE);
  };
}
