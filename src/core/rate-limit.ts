import { HttpError } from './errors.js';

// A fixed-window counter per key (client address, user name...), in memory. It is
// per process on purpose: the limits it guards (password guessing, install clicks)
// only need to be roughly right, and a restart forgetting them is harmless.
//
// Memory is bounded by `maxKeys`. Every window has the same length, so the Map's
// insertion order is also expiry order: expired entries are dropped from the front
// in O(1) each, and when the table is still full the oldest key is evicted. A flood
// of fresh keys can therefore push an old key out early; callers that care combine
// two limiters (per name and per address) so one flood does not clear both.

export const DEFAULT_MAX_KEYS = 10_000;

export interface RateLimitOptions {
  /** Hits allowed per key within one window. */
  limit: number;
  windowMs: number;
  /** Most keys remembered at once; oldest evicted beyond it. */
  maxKeys?: number;
  /** Clock, for tests. */
  now?: () => number;
}

export interface RateDecision {
  /** False once the key has used up its hits for this window. */
  allowed: boolean;
  /** Hits left in this window. */
  remaining: number;
  /** Whole seconds until the window ends (at least 1), for Retry-After. */
  retryAfterSeconds: number;
}

interface Window {
  count: number;
  resetAt: number;
}

export interface RateLimiter {
  /** The key's state, without counting anything. */
  peek(key: string): RateDecision;
  /** Counts one hit (unless the key is already over) and says whether it was allowed. */
  hit(key: string): RateDecision;
  /**
   * Takes back one hit: a caller that counts an attempt before knowing its outcome
   * (so concurrent attempts cannot all slip under the limit) refunds the ones that
   * should not count, e.g. a successful login.
   */
  refund(key: string): void;
  /** Forgets the key, e.g. after a successful login. */
  reset(key: string): void;
  readonly size: number;
}

export function createRateLimiter(options: RateLimitOptions): RateLimiter {
  const { limit, windowMs } = options;
  const maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
  const now = options.now ?? Date.now;
  if (!Number.isInteger(limit) || limit < 1) throw new Error('rate limit: limit must be a positive integer');
  if (!(windowMs > 0)) throw new Error('rate limit: windowMs must be positive');
  if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new Error('rate limit: maxKeys must be a positive integer');

  const windows = new Map<string, Window>();

  const dropExpired = (at: number) => {
    for (const [key, window] of windows) {
      if (window.resetAt > at) break;
      windows.delete(key);
    }
  };

  const current = (key: string, at: number): Window | undefined => {
    const window = windows.get(key);
    if (window && window.resetAt <= at) {
      windows.delete(key);
      return undefined;
    }
    return window;
  };

  const decide = (window: Window | undefined, at: number, allowed: boolean): RateDecision => ({
    allowed,
    remaining: window ? Math.max(0, limit - window.count) : limit,
    retryAfterSeconds: window ? Math.max(1, Math.ceil((window.resetAt - at) / 1000)) : Math.ceil(windowMs / 1000),
  });

  return {
    peek(key) {
      const at = now();
      const window = current(key, at);
      return decide(window, at, !window || window.count < limit);
    },
    hit(key) {
      const at = now();
      let window = current(key, at);
      if (!window) {
        dropExpired(at);
        while (windows.size >= maxKeys) windows.delete(windows.keys().next().value!);
        window = { count: 0, resetAt: at + windowMs };
        windows.set(key, window);
      }
      if (window.count >= limit) return decide(window, at, false);
      window.count++;
      return decide(window, at, true);
    },
    refund(key) {
      const window = current(key, now());
      if (window && window.count > 0) window.count--;
    },
    reset(key) {
      windows.delete(key);
    },
    get size() {
      return windows.size;
    },
  };
}

/** The 429 a refused decision becomes, with the Retry-After the contract asks for. */
export function rateLimited(decision: RateDecision, message = 'Too many attempts; try again later'): HttpError {
  return new HttpError(429, 'RATE_LIMITED', message, {
    headers: { 'Retry-After': String(decision.retryAfterSeconds) },
  });
}
