import { createLru, type LruOptions } from '../../core/lru.js';
import { prepareJson, sendPreparedJson, type PreparedJson } from '../../core/prepared-json.js';
import { sendJson } from '../../core/respond.js';
import { createSingleFlight } from '../../core/single-flight.js';
import { runQuery } from '../../db/queries.js';
import type { Sql } from '../../db/pool.js';
import type { SiteContext } from '../context.js';
import type { Viewer } from './visibility.js';

// The store's lists and details as visitors see them (no session: the launcher, the
// store front, a search from the home page, a plugin page) are the same bytes for
// everyone until the catalogue changes, and building a page of 100 plugins (rows
// parsed, records shaped, JSON.stringify, zlib) costs far more than reading one
// number. So each answer is kept, tagged with the store's generation read before it
// was built (sql/050_store_generation.sql), and reused while the generation is the
// same.
//
// The generation lives in PostgreSQL and changes in the committing transaction, so
// this is exact across any number of site processes: a request reads it first, and
// an answer built before a commit is never served after it. Concurrent requests for
// the same missing answer share one build.
//
// A logged-in player who has never submitted a plugin sees exactly what a visitor
// sees (visibility.ts: approved plugins, and no review fields since they own none),
// so they get the same answers; the same read tells whether they have submitted
// any. Authors and administrators get answers built for them.

export const VISITOR_ANSWERS: LruOptions = { maxEntries: 256, maxBytes: 32 * 1024 * 1024 };

const NO_STORE = { 'Cache-Control': 'no-store' };

interface Kept {
  generation: bigint;
  answer: PreparedJson;
}

export interface VisitorAnswers {
  /**
   * Sends the answer for `key`: the visitors' one when `viewer` sees what a visitor
   * sees, else `build(viewer)` made for them; `no-store` either way (a shared cache
   * must not keep an answer that depends on the session).
   */
  send(ctx: SiteContext, key: string, viewer: Viewer, build: (viewer: Viewer) => Promise<unknown>): Promise<void>;
  /**
   * The visitor's answer for `key` under the current generation, built by `build`
   * (as a visitor) when missing; undefined when `viewer` must get an answer of
   * their own (an administrator, or a user who has submitted a plugin).
   */
  answer(key: string, viewer: Viewer, build: () => Promise<unknown>): Promise<PreparedJson | undefined>;
}

export function createVisitorAnswers(sql: Sql, limits: LruOptions = VISITOR_ANSWERS): VisitorAnswers {
  const kept = createLru<Kept>(limits);
  const building = createSingleFlight<PreparedJson>();
  const answers: VisitorAnswers = {
    async send(ctx, key, viewer, build) {
      const shared = await answers.answer(key, viewer, () => build(null));
      if (shared) sendPreparedJson(ctx, 200, shared, NO_STORE);
      else sendJson(ctx, 200, await build(viewer), NO_STORE);
    },
    async answer(key, viewer, build) {
      if (viewer?.admin) return undefined;
      const [row] = await runQuery<{ generation: string; viewer_submits: boolean }>(sql, 'store/generation', [viewer?.id ?? null]);
      if (row!.viewer_submits) return undefined;
      const generation = BigInt(row!.generation);
      const found = kept.get(key);
      if (found?.generation === generation) return found.answer;
      return building(`${generation} ${key}`, async () => {
        const answer = prepareJson(await build());
        // A slower build of an older generation never replaces a newer answer.
        const current = kept.get(key);
        if (!current || current.generation < generation) kept.set(key, { generation, answer }, answer.bytes + key.length);
        return answer;
      });
    },
  };
  return answers;
}
