// How often one user may write ratings and replies, and how often a rater's new
// ratings of one plugin reach its author. The counters are the shared PostgreSQL
// limiter's (src/db/shared-rate-limiter.ts), so every site process counts against the same.

/** Rating writes per user a minute: rating, changing and deleting, all plugins together. */
export const RATING_WRITES_PER_MINUTE = 20;
/** Replies written per user a minute, all plugins together. */
export const REPLIES_PER_MINUTE = 20;
export const RATE_WINDOW_MS = 60_000;
