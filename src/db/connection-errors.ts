// What a failed query's error says about the connection under it: unreachable
// (503 at once), a reason for the pool's breaker to open, or a hint of a hung
// server. Apart from deadline.ts and breaker.ts, which both read it, so that
// neither has to import the other for it.

/**
 * Errors that mean "the database cannot be reached" (503 as well, not 500): the
 * server is stopped, restarting or cut off. Socket errors while connecting, the
 * connection lost under a query (postgres.js's CONNECTION_*), PostgreSQL shutting
 * down (57P01 admin_shutdown, 57P02 crash_shutdown) and SQLSTATE class 08
 * (connection exception). A request then fails in milliseconds, and the pool
 * reconnects on its own once the server is back.
 */
const UNREACHABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ETIMEDOUT',
  'CONNECTION_CLOSED', 'CONNECTION_DESTROYED', 'CONNECTION_ENDED', '57P01', '57P02',
]);

export function isUnreachable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = String((error as { code?: unknown }).code);
  return UNREACHABLE.has(code) || code.startsWith('08');
}

/**
 * Errors after which the pool's breaker opens at once (breaker.ts): PostgreSQL
 * refused or reset the connection, is shutting down, or cannot take connections
 * now (57P03: starting up or shutting down). Not CONNECTION_ENDED: that pool was
 * ended on purpose. Not a timeout: see hintsAtHang.
 */
export function opensBreaker(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = String((error as { code?: unknown }).code);
  if (code === 'CONNECTION_ENDED' || TIMEOUTS.has(code)) return false;
  return code === '57P03' || isUnreachable(error);
}

/** A connect that did not finish in time (postgres.js's, or the socket's). */
const TIMEOUTS = new Set(['CONNECT_TIMEOUT', 'ETIMEDOUT']);

/**
 * Errors that a hung server gives, and a busy one too: the breaker only suspects
 * (breaker.ts), and opens when a probe confirms that nothing answers.
 */
export function hintsAtHang(error: unknown): boolean {
  return typeof error === 'object' && error !== null && TIMEOUTS.has(String((error as { code?: unknown }).code));
}
