import { HttpError } from '../http/errors.js';
import type { Breaker } from './breaker.js';
import { hintsAtHang, isUnreachable, opensBreaker } from './connection-errors.js';

// No query may hang a request. Two bounds work together:
// - PostgreSQL's own statement_timeout (set on every pooled connection, pool.ts)
//   cancels a statement that runs too long on a live server, which frees its
//   connection at once;
// - a deadline on the client (withDeadline) bounds everything else: waiting for a
//   free connection, connecting, and a server or network that stopped answering
//   (where no cancel request could get through anyway).
// Either way the request gets 503 UNAVAILABLE with Retry-After, mapped here only;
// so does a database that cannot be reached at all (isUnreachable).

/** Longest a request waits for one query, queueing for a connection included. */
export const QUERY_TIMEOUT_MS = 5000;
/** PostgreSQL cancels a running statement after this; below QUERY_TIMEOUT_MS, so a slow query ends server-side first. */
export const STATEMENT_TIMEOUT_MS = 4000;
/** A transaction left open by a client that went away is ended by PostgreSQL after this, releasing its locks. */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 30_000;
/** What the 503 tells clients to wait. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * Errors that mean "the database did not answer in time" (503), as opposed to a
 * failure (500): query_canceled (statement_timeout), lock_not_available,
 * too_many_connections, cannot_connect_now (starting up), and postgres.js's
 * connect timeout.
 */
const NOT_IN_TIME = new Set(['57014', '55P03', '53300', '57P03', 'CONNECT_TIMEOUT']);

/** The 503 of a database found unreachable (an open breaker), made once: it is thrown at every refused query. */
const UNREACHABLE_HEADERS = { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) };

/** What a query gets while its pool's breaker is open: 503 at once, nothing sent. */
export function databaseUnreachable(): HttpError {
  return new HttpError(503, 'UNAVAILABLE', 'The database is unavailable; try again shortly', { headers: UNREACHABLE_HEADERS });
}

export function databaseUnavailable(cause?: unknown): HttpError {
  const message = isUnreachable(cause) ? 'The database is unavailable; try again shortly' : 'The database did not answer in time; try again shortly';
  return new HttpError(503, 'UNAVAILABLE', message, {
    headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
    cause,
  });
}

export function isNotInTime(error: unknown): boolean {
  return typeof error === 'object' && error !== null && NOT_IN_TIME.has(String((error as { code?: unknown }).code));
}

/**
 * Settles like `pending`, or rejects with the 503 once `ms` have passed; then
 * `abandon` is called so the caller can drop work that has not started. What
 * `pending` does afterwards is ignored (its rejection is caught, never unhandled).
 * `breaker` (breaker.ts) hears whether the database answered.
 */
export function withDeadline<T>(pending: PromiseLike<T>, ms: number = QUERY_TIMEOUT_MS, abandon?: () => void, breaker?: Breaker): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      abandon?.();
      reject(databaseUnavailable());
    }, ms);
    pending.then(
      (value) => {
        clearTimeout(timer);
        breaker?.succeeded();
        if (!late) resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (breaker !== undefined && opensBreaker(error)) breaker.trip();
        else if (breaker !== undefined && hintsAtHang(error)) breaker.suspect();
        if (!late) reject(isNotInTime(error) || isUnreachable(error) ? databaseUnavailable(error) : error);
      },
    );
  });
}
