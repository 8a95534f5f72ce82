import { monotonicClock, type Clock } from '../../../lib/clock.js';
import { createLru, type LruOptions } from '../../../lib/lru.js';
import type { Sql } from '../../../db/pool.js';
import type { SessionUser, SiteContext } from '../context.js';
import { generationsOf } from '../generations.js';
import { findSessionByHash, isWellFormedToken, tokenKey } from './sessions.js';

// Session lookups kept per session generation (sql/008_generations.sql), so
// that a logged-in request sends no query of its own for its session: it waits for
// the shared read of the generations (site/generations.ts), which its kept answer
// needs anyway.
//
// Exact across processes: the session generation moves in the transaction that
// deletes or changes a session or changes a user's name, avatar or administrator
// flag, and a lookup is kept under the generation of its own snapshot (one
// statement, auth/find-session). A kept lookup is used only when the generation read
// for the request (a read that started after the request arrived) is the same: a
// logout committed on any process moves the number, so every request that arrives
// after the commit reads a number no kept lookup carries and looks the session up
// again. Expiry needs no write to move the number: each kept lookup carries its
// session's remaining lifetime, counted from before the lookup was sent, and is not
// used once that has passed.
//
// A token seen for the first time is looked up at once, without waiting for the
// generations: one round trip, as without keeping. Keyed by the token's SHA-256 (as
// the table is), so the process keeps no cookie value. Only live sessions are kept;
// a cookie that names none is looked up each time, as before.

export const KEPT_SESSIONS: LruOptions = { maxEntries: 10_000, maxBytes: 4 * 1024 * 1024 };

interface Kept {
  generation: bigint;
  user: SessionUser;
  /** The time (`now`) past which the session may have expired. */
  liveUntil: number;
}

export interface KeptSessions {
  /** The user of the live session `token` names, or null; exact as a lookup of its own (above). */
  find(ctx: SiteContext, token: string): Promise<SessionUser | null>;
}

/** `now`: a monotonic clock, ms; tests pass one they move. */
export function createKeptSessions(sql: Sql, options: LruOptions = KEPT_SESSIONS, now: Clock = monotonicClock): KeptSessions {
  const kept = createLru<Kept>(options);
  const generations = generationsOf(sql);

  const lookUp = async (key: string): Promise<SessionUser | null> => {
    const sent = now();
    const session = await findSessionByHash(sql, Buffer.from(key, 'base64'));
    if (session === null) {
      kept.delete(key);
      return null;
    }
    // Shared by the requests that find it: frozen, so none can change it for the others.
    const user = Object.freeze(session.user);
    const current = kept.get(key);
    // A slower lookup under an older generation never replaces a newer one.
    if (current === undefined || current.generation <= session.generation) {
      const bytes = key.length + user.id.length + user.username.length + user.avatar.length + 64;
      kept.set(key, { generation: session.generation, user, liveUntil: sent + session.expiresInMs }, bytes);
    }
    return user;
  };

  return {
    async find(ctx, token) {
      if (!isWellFormedToken(token)) return null;
      const key = tokenKey(token);
      if (kept.get(key) === undefined) return lookUp(key);
      const { sessions: generation } = await generations.readFor(ctx);
      // Looked up again: another request may have replaced it while this one waited.
      const found = kept.get(key);
      if (found !== undefined && found.generation === generation && now() < found.liveUntil) return found.user;
      return lookUp(key);
    },
  };
}
