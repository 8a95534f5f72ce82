import { prepareJson, type PreparedAnswer } from '../../../http/answer/index.js';
import { createLru, type LruOptions } from '../../../lib/lru.js';
import { createSingleFlight } from '../../../lib/single-flight.js';
import type { Sql } from '../../../db/pool.js';
import type { SessionUser, SiteContext } from '../context.js';
import { generationsOf } from '../generations.js';

// A logged-in caller's ratings page (with their `myRating`) is the same bytes until
// a rating, a reply, a rater's name or avatar (sql/008: the ratings generation) or a
// plugin (its status, submitter, star counts or deletion: the store's generation)
// changes. Building it costs two queries, rows parsed, JSON.stringify and Brotli;
// reading both numbers costs nothing of its own: the request's session guard
// already reads them (site/generations.ts, one statement shared by the requests
// arriving together). So each page is kept under its caller (user id and
// administrator flag: what they may see and their own rating are theirs alone),
// tagged with both numbers read before it was built, and reused only while both are
// unchanged. Both move in the committing transaction, so this is exact across every
// site process. Concurrent requests of one caller for a missing page share one build.
//
// Visitors are not kept here: their pages are built per request and kept only for
// outages (page-route.ts). Nothing kept here is served while PostgreSQL is away: the
// numbers cannot be read then, and the error is answered as before.

/** Bounded by bytes: a page of 50 ratings with their replies is tens of KB. */
export const KEPT_RATINGS_PAGES: LruOptions = { maxEntries: 1024, maxBytes: 16 * 1024 * 1024 };
/** What an entry weighs beside its bytes and key (record, prepared answer, map slot). */
const ENTRY_OVERHEAD_BYTES = 1024;

interface Kept {
  store: bigint;
  ratings: bigint;
  answer: PreparedAnswer;
}

export interface KeptRatingsPages {
  /**
   * The answer to `question` (the plugin id, lower-cased, and the page) as `viewer`
   * sees it under the current generations, made from `build()` when missing; a build
   * that throws (404) keeps nothing.
   */
  answer(ctx: SiteContext, viewer: SessionUser, question: string, build: () => Promise<unknown>): Promise<PreparedAnswer>;
}

export function createKeptRatingsPages(sql: Sql, options: LruOptions = KEPT_RATINGS_PAGES): KeptRatingsPages {
  const generations = generationsOf(sql);
  const pages = createLru<Kept>(options);
  const building = createSingleFlight<PreparedAnswer>();
  return {
    async answer(ctx, viewer, question, build) {
      const { store, ratings } = await generations.readFor(ctx);
      const key = `${viewer.id}${viewer.admin ? 'a' : 'u'} ${question}`;
      const found = pages.get(key);
      if (found !== undefined && found.store === store && found.ratings === ratings) return found.answer;
      return building(`${store} ${ratings} ${key}`, async () => {
        // Sent with no-store (the page is the caller's): no ETag to hash.
        const answer = prepareJson(await build(), { etag: false, cacheControl: 'no-store' });
        // A slower build under older numbers never replaces a newer page (both only grow).
        const current = pages.get(key);
        if (current === undefined || (current.store <= store && current.ratings <= ratings)) {
          pages.set(key, { store, ratings, answer }, answer.bytes + key.length + ENTRY_OVERHEAD_BYTES);
        }
        return answer;
      });
    },
  };
}
