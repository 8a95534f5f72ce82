import { createHash } from 'node:crypto';
import type { RateDecision } from '../http/rate-limited.js';
import { wallClock, type Clock } from '../lib/clock.js';
import type { Sql } from './pool.js';
import { runNamed } from './queries.js';
import type { RateLimitHitRow } from './query-rows.js';

// Rate limits that every site process shares: a fixed-window counter per key in
// PostgreSQL (sql/001_users.sql). Each hit is one statement (insert ... on
// conflict do update ... returning), so concurrent hits through any number of
// processes never let more than `limit` through in a window.

/** Keys longer than this (or that PostgreSQL text cannot hold) are stored hashed. */
export const MAX_KEY_LENGTH = 200;
/** How often one limiter sweeps expired windows out of the table, at most. */
export const PURGE_INTERVAL_MS = 60_000;
/** Expired windows deleted per sweep: a bounded amount of work, whatever piled up. */
export const PURGE_BATCH = 1000;

const LIMITER_NAME = /^[a-z0-9][a-z0-9:_-]{0,39}$/;
/** PostgreSQL's integer, which the window length is passed as. */
const MAX_WINDOW_MS = 2 ** 31 - 1;

export interface SharedRateLimiter {
  /** Counts one hit unless already over, and says whether it was allowed; atomic across processes. */
  hit(key: string): Promise<RateDecision>;
  /** The key's state, without counting anything. */
  peek(key: string): Promise<RateDecision>;
  /**
   * Takes back one hit: a caller that counts an attempt before knowing its outcome
   * (so concurrent attempts cannot all slip under the limit) refunds the ones that
   * should not count, e.g. a successful login.
   */
  refund(key: string): Promise<void>;
  /** Forgets the key, e.g. after a successful login. */
  reset(key: string): Promise<void>;
}

export interface SharedRateLimitOptions {
  /** Names the limit in the table ("login:name"); two limiters with one name share counts. */
  name: string;
  /** Hits allowed per key within one window. */
  limit: number;
  windowMs: number;
  /**
   * The process's clock (wall time, ms), for what it times itself: the purge's
   * interval, and the batched limiter's windows in memory. A window in PostgreSQL is
   * timed by PostgreSQL's clock. Tests pass one they move.
   */
  now?: Clock;
}

/** A window as rate-limit/hit and rate-limit/peek return it. */
type WindowRow = RateLimitHitRow;

export function createSharedRateLimiter(sql: Sql, options: SharedRateLimitOptions): SharedRateLimiter {
  const { name, limit, windowMs } = options;
  if (!LIMITER_NAME.test(name)) throw new Error(`rate limit "${name}": name must match ${LIMITER_NAME}`);
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`rate limit "${name}": limit must be a positive integer`);
  if (!Number.isInteger(windowMs) || windowMs < 1 || windowMs > MAX_WINDOW_MS) {
    throw new Error(`rate limit "${name}": windowMs must be a whole number of milliseconds, 1 to ${MAX_WINDOW_MS}`);
  }
  const fullWindowSeconds = Math.max(1, Math.ceil(windowMs / 1000));
  const decide = (row: WindowRow | undefined, allowed: boolean): RateDecision => ({
    allowed,
    remaining: row ? Math.max(0, limit - row.hits) : limit,
    retryAfterSeconds: row ? Math.max(1, Math.ceil(row.seconds_left)) : fullWindowSeconds,
  });

  // Lookups already ignore expired windows (a hit restarts them); the sweep only
  // keeps the table small. It runs in the background of a hit, at most once per
  // interval per limiter, and its failure costs nothing but a later retry.
  const clock = options.now ?? wallClock;
  let lastPurge = clock();
  const purgeNowAndThen = () => {
    const now = clock();
    if (now - lastPurge < PURGE_INTERVAL_MS) return;
    lastPurge = now;
    runNamed(sql, 'rate-limit/purge', { batch: PURGE_BATCH }).catch(() => {});
  };

  return {
    async hit(key) {
      purgeNowAndThen();
      const [row] = await runNamed(sql, 'rate-limit/hit', { limiter: name, key: storedKey(key), limit, window_ms: windowMs });
      return decide(row!, row!.hits <= limit);
    },
    async peek(key) {
      const [row] = await runNamed(sql, 'rate-limit/peek', { limiter: name, key: storedKey(key) });
      return decide(row, !row || row.hits < limit);
    },
    async refund(key) {
      await runNamed(sql, 'rate-limit/refund', { limiter: name, key: storedKey(key) });
    },
    async reset(key) {
      await runNamed(sql, 'rate-limit/reset', { limiter: name, key: storedKey(key) });
    },
  };
}

/**
 * The key as stored: as given when it is short and plain, else its SHA-256, so a
 * client-chosen key (a user name, a header) can neither bloat the table nor hold
 * a NUL that PostgreSQL text refuses.
 */
export function storedKey(key: string): string {
  if (key.length > 0 && key.length <= MAX_KEY_LENGTH && !key.includes('\0')) return key;
  return 'sha256:' + createHash('sha256').update(key, 'utf8').digest('base64url');
}
