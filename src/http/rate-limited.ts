import { HttpError } from './errors.js';

// What a rate limit answers, and the 429 it becomes. The counters themselves live
// in PostgreSQL (src/db/shared-rate-limiter.ts), so every process of a service shares them.

export interface RateDecision {
  /** False once the key has used up its hits for this window. */
  allowed: boolean;
  /** Hits left in this window. */
  remaining: number;
  /** Whole seconds until the window ends (at least 1), for Retry-After. */
  retryAfterSeconds: number;
}

/** The 429 a refused decision becomes, with the Retry-After docs/api.md promises. */
export function rateLimited(decision: RateDecision, message = 'Too many attempts; try again later'): HttpError {
  return new HttpError(429, 'RATE_LIMITED', message, {
    headers: { 'Retry-After': String(decision.retryAfterSeconds) },
  });
}
