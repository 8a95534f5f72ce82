import type { RateDecision } from '../http/rate-limited.js';
import { wallClock } from '../lib/clock.js';
import type { Sql } from './pool.js';
import { runNamed } from './queries.js';
import type { RateLimitAddRow } from './query-rows.js';
import { PURGE_BATCH, PURGE_INTERVAL_MS, storedKey, type SharedRateLimitOptions } from './shared-rate-limiter.js';

// A per-key limit shared by every site process, for a route too hot for a
// PostgreSQL write per request (the launchers' update check). The counts live in
// the same table as the shared limiter's (rate_limits, fixed windows), but each
// process counts hits in memory and adds them to PostgreSQL in one statement every
// `flushMs` (rate-limit/add.sql), learning back the totals over all processes of
// the keys near their limit.
//
// The tolerance, documented in docs/operations.md: a process decides alone while
// it holds fewer than `unflushed` hits of a key that PostgreSQL has not counted;
// the next hit of that key waits for PostgreSQL (its hits are added at once and the
// total decides). Within one process the limit is exact; over N processes a key
// gets at most limit + (N - 1) x unflushed hits in a window.
//
// Memory: a key is kept only while it has hits not yet counted, or is close to
// its limit (within `unflushed`) in an open window; others are forgotten after a
// flush. A forgotten key starts again from 0 in memory, which cannot let it past
// the limit: it had at most limit - unflushed hits, and it may add fewer than
// `unflushed` before PostgreSQL is asked again. A full table of keys sends a new
// key's hit straight to PostgreSQL. So a flush reads back only the keys near their
// limit: with a new address per update check, returning every key's row cost the
// site 4-10 ms of one turn of its event loop a second, parsing and learning 5,000
// rows of keys it then forgot.

export interface BatchedRateLimitOptions extends SharedRateLimitOptions {
  /** Hits of one key a process lets through before PostgreSQL has counted them. */
  unflushed: number;
  /** How often the counted hits are added to PostgreSQL, ms. */
  flushMs: number;
  /** Keys held in memory at most. */
  maxKeys?: number;
}

export interface BatchedRateLimiter {
  /** Counts one hit and says whether it was allowed: at once when this process can decide alone. */
  hit(key: string): RateDecision | Promise<RateDecision>;
  /** Adds every counted hit to PostgreSQL now. */
  flush(): Promise<void>;
  /** Stops the timer and adds what is counted. */
  close(): Promise<void>;
}

interface KeyState {
  /** The key's hits over every process, as PostgreSQL last said (0 when unknown or its window ended). */
  known: number;
  /** Hits counted here and not yet sent. */
  pending: number;
  /** Hits sent and not yet answered. */
  sending: number;
  /** When the window PostgreSQL told of ends (the `now` option's scale); 0 when unknown. */
  resetsAt: number;
}

type AddedRow = RateLimitAddRow;

export const DEFAULT_MAX_KEYS = 100_000;

export function createBatchedRateLimiter(sql: Sql, options: BatchedRateLimitOptions): BatchedRateLimiter {
  const { name, limit, windowMs, unflushed, flushMs } = options;
  const maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
  const clock = options.now ?? wallClock;
  if (!Number.isInteger(unflushed) || unflushed < 1 || unflushed > limit) throw new Error(`rate limit "${name}": unflushed must be 1 to limit`);
  const keys = new Map<string, KeyState>();
  const fullWindowSeconds = Math.max(1, Math.ceil(windowMs / 1000));
  let timer: NodeJS.Timeout | undefined;
  let lastPurge = clock();

  // A key whose count over every process is at most this is forgotten after a flush
  // (forgettable, below): a flush reads back only the keys above it.
  const farFromLimit = limit - unflushed;
  /** Adds `hits` to the keys `stored`; the rows of the keys whose count is now above `above`. */
  const add = async (stored: string[], hits: number[], above: number): Promise<AddedRow[]> => {
    const now = clock();
    if (now - lastPurge >= PURGE_INTERVAL_MS) {
      lastPurge = now;
      runNamed(sql, 'rate-limit/purge', { batch: PURGE_BATCH }).catch(() => {});
    }
    return runNamed(sql, 'rate-limit/add', { limiter: name, keys: stored, hits, limit, window_ms: windowMs, above });
  };

  const learn = (state: KeyState, row: AddedRow, sent: number, now: number) => {
    state.sending -= sent;
    state.known = row.hits;
    state.resetsAt = now + row.seconds_left * 1000;
  };

  // A key worth keeping: hits on their way, or near its limit in an open window.
  const forgettable = (state: KeyState, now: number) =>
    state.pending === 0 && state.sending === 0 && (state.known <= limit - unflushed || state.resetsAt <= now);

  const flush = async (): Promise<void> => {
    timer = undefined;
    const batch: Array<[string, KeyState, number]> = [];
    for (const [key, state] of keys) {
      if (state.pending === 0) continue;
      batch.push([key, state, state.pending]);
      state.sending += state.pending;
      state.pending = 0;
    }
    if (batch.length === 0) return;
    batch.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    let rows: AddedRow[];
    try {
      rows = await add(
        batch.map((entry) => entry[0]),
        batch.map((entry) => entry[2]),
        farFromLimit,
      );
    } catch {
      // Counted again at the next flush; meanwhile the pending count holds them back.
      for (const [, state, sent] of batch) {
        state.sending -= sent;
        state.pending += sent;
      }
      schedule();
      return;
    }
    const now = clock();
    const byKey = new Map(rows.map((row) => [row.key, row]));
    for (const [key, state, sent] of batch) {
      const row = byKey.get(key);
      if (row) learn(state, row, sent, now);
      else {
        // Not read back: its count is at most farFromLimit, which bounds it from above.
        state.sending -= sent;
        state.known = Math.min(state.known, farFromLimit);
      }
    }
    for (const [key, state] of keys) if (forgettable(state, now)) keys.delete(key);
  };

  const schedule = () => {
    if (timer !== undefined) return;
    timer = setTimeout(() => void flush(), flushMs);
    timer.unref();
  };

  const decide = (hits: number, resetsAt: number, now: number, allowed: boolean): RateDecision => ({
    allowed,
    remaining: Math.max(0, limit - hits),
    retryAfterSeconds: resetsAt > now ? Math.max(1, Math.ceil((resetsAt - now) / 1000)) : fullWindowSeconds,
  });

  // This hit and the key's uncounted ones go to PostgreSQL now; its total decides.
  const addNow = async (stored: string, state: KeyState | undefined): Promise<RateDecision> => {
    const sent = 1 + (state?.pending ?? 0);
    if (state) {
      state.pending = 0;
      state.sending += sent;
    }
    let row: AddedRow;
    try {
      [row] = (await add([stored], [sent], 0)) as [AddedRow];
    } catch (error) {
      // Not counted by PostgreSQL: held back as pending, added at the next flush, and
      // counted against the limit here meanwhile (else every failed add lost them).
      if (state) {
        state.sending -= sent;
        state.pending += sent;
        schedule();
      }
      throw error;
    }
    const now = clock();
    if (state) learn(state, row, sent, now);
    return decide(row.hits, now + row.seconds_left * 1000, now, row.hits <= limit);
  };

  return {
    hit(key) {
      const stored = storedKey(key);
      const now = clock();
      let state = keys.get(stored);
      if (state === undefined) {
        if (keys.size >= maxKeys) return addNow(stored, undefined);
        state = { known: 0, pending: 0, sending: 0, resetsAt: 0 };
        keys.set(stored, state);
      } else if (state.resetsAt !== 0 && state.resetsAt <= now) {
        // The window PostgreSQL told of is over: the next add starts a new one.
        state.known = 0;
        state.resetsAt = 0;
      }
      const hits = state.known + state.sending + state.pending;
      if (hits >= limit) return decide(hits, state.resetsAt, now, false);
      if (state.pending + state.sending >= unflushed - 1) return addNow(stored, state);
      state.pending++;
      schedule();
      return decide(hits + 1, state.resetsAt, now, true);
    },
    flush,
    async close() {
      if (timer !== undefined) clearTimeout(timer);
      await flush();
    },
  };
}
