// The Cache-Status response header (RFC 9211) of an answer served stale because
// its origin, PostgreSQL, cannot be reached. The site's kept answers are a cache
// in front of the database (site/store/kept-answers.ts); a fresh one is
// revalidated by every request (the store generation) and says nothing. A stale
// one says `hit` (RFC 9211 2.1: served from the cache, not forwarded: an open
// breaker forwards nothing) with a negative `ttl`, seconds since the answer could
// last be revalidated (RFC 9211 section 3: "a stale hit just has negative
// freshness"), and a `detail` token saying why.

/** The cache's name in the header: the name the site gives PostgreSQL too (application_name). */
export const CACHE_NAME = 'launcher-web';

/** `secondsStale`: how long the answer could not be revalidated; at least 1, so the ttl is always negative. */
export function staleCacheStatus(secondsStale: number, detail: string): string {
  return `${CACHE_NAME}; hit; ttl=-${Math.max(1, Math.ceil(secondsStale))}; detail=${detail}`;
}
