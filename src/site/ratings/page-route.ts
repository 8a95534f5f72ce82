import { compressFast } from '../../http/content-encoding.js';
import { sendPrepared } from '../../http/prepared-answer.js';
import { sendJsonBytes } from '../../http/respond.js';
import { createLru } from '../../lib/lru.js';
import type { SiteContext, SiteDeps } from '../context.js';
import { generationsOf } from '../generations.js';
import { staleFor, staleStatus } from '../store/kept-answers.js';
import { exactBytes } from '../../lib/exact-buffer.js';
import { findVisiblePlugin } from '../store/visibility.js';
import { createKeptRatingsPages } from './kept-pages.js';
import { readRatingsPage } from './ratings-reads.js';
import { parsePageRequest } from './validation.js';

/**
 * The last ratings page built for each visitor's question, kept only to be served
 * while PostgreSQL cannot be reached (STALE_IF_ERROR_SECONDS, store/kept-answers.ts).
 * Not reused while it answers: replies and the raters' names change a page without
 * moving the store generation. Keeping one costs a map entry for bytes made anyway.
 * Each is tagged with the visibility generation (sql/240) this process last read when
 * it was built and served only while that is still the last one read (as the store's
 * answers): a plugin hidden or removed, or a rating hidden or deleted since, must not
 * come back from here; a new rating elsewhere does not stop it.
 */
/** Bounded by bytes rather than count, as the store's visitor answers (store/kept-answers.ts): one first page per plugin fits. */
export const LAST_VISITOR_PAGES = { maxEntries: 8192, maxBytes: 16 * 1024 * 1024 };

/** The answer depends on the session (myRating, hidden plugins): no shared cache may keep it. */
const NO_STORE = { 'Cache-Control': 'no-store' } as const;

/**
 * GET /apps/api/plugins/:id/ratings?limit&offset: {success, avg, count,
 * distribution, ratings, limit, offset}, plus `myRating` (the caller's own rating
 * or null) for a logged-in caller; visitors get no `myRating` key at all. Built
 * with two queries (the visibility check and the page): per request for visitors,
 * once per caller and generations for a logged-in caller (kept-pages.ts).
 */
interface LastPage {
  bytes: Buffer;
  /** The visibility generation last read on this process before the page was built. */
  generation: bigint;
  /** Date.now() when built: the page was current then. */
  builtAt: number;
}

export function ratingsPageHandler(deps: SiteDeps) {
  const lastPages = createLru<LastPage>(LAST_VISITOR_PAGES);
  const generations = generationsOf(deps.sql);
  const keptPages = createKeptRatingsPages(deps.sql);
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
    try {
      const plugin = await findVisiblePlugin(deps.sql, ctx.params.id!, user);
      const page = await readRatingsPage(deps.sql, plugin.id, { limit, offset, viewerId: null });
      body = { success: true, ...page.stats, ratings: page.ratings, limit, offset };
    } catch (error) {
      const last = lastPages.get(key);
      const current = last !== undefined && last.generation === generations.lastRead()?.visibility;
      // A page was last confirmed current when it was built: replies change it without moving the generation.
      const secondsStale = current ? staleFor(deps.sql, error, deps.config.staleIfErrorSeconds, last.builtAt) : undefined;
      if (secondsStale === undefined) throw error;
      return sendJsonBytes(ctx, 200, last!.bytes, compressFast, { ...NO_STORE, 'Cache-Status': staleStatus(secondsStale) });
    }
    // Kept for outages: in memory of its own, not a slice of a shared pool slab (lib/exact-buffer.ts).
    const bytes = exactBytes(JSON.stringify(body));
    // Untagged (no generation read yet on this process): never served stale.
    if (generation !== undefined) lastPages.set(key, { bytes, generation, builtAt: Date.now() }, bytes.length + key.length + 48);
    else lastPages.delete(key);
    sendJsonBytes(ctx, 200, bytes, compressFast, NO_STORE);
  };
}
