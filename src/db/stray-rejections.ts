import type { Logger } from '../lib/log.js';
import { hintsAtHang, isUnreachable, opensBreaker } from './deadline.js';

// postgres.js runs work of its own that no request awaits: reconnecting the
// LISTEN connection of the webhook worker, re-subscribing its channels, cancel
// requests over a fresh connection. When PostgreSQL restarts, such work can end in
// a rejection nobody handles (a test with two sites on one pool crashed twice in
// six runs on an unhandled ECONNREFUSED), and Node ends the process for it. A lost
// connection is no reason for a service to die: the pool reconnects and the
// breaker (breaker.ts) answers for the database meanwhile. Any other unhandled
// rejection is a bug and still ends the process, as Node would.

/** True for the errors of a database connection that failed or was lost. */
export function isConnectionFailure(reason: unknown): boolean {
  return opensBreaker(reason) || hintsAtHang(reason) || isUnreachable(reason);
}

/** The process's unhandledRejection handler: logs a lost database connection, rethrows anything else. */
export function strayRejectionHandler(log: Logger): (reason: unknown) => void {
  return (reason) => {
    if (!isConnectionFailure(reason)) throw reason;
    log.warn('a PostgreSQL connection failed outside any request; the pool reconnects', { code: (reason as { code?: unknown }).code });
  };
}

/** Installs strayRejectionHandler for the process (entrypoints only, once). */
export function surviveStrayConnectionFailures(log: Logger): void {
  process.on('unhandledRejection', strayRejectionHandler(log));
}
