import { isIP } from 'node:net';
import postgres from 'postgres';
import type { Logger } from '../lib/log.js';
import { hintsAtHang, isUnreachable, opensBreaker } from './connection-errors.js';
import { lastConnectionCloseOf, type Sql } from './pool.js';

// postgres.js runs work of its own that no request awaits: reconnecting the
// LISTEN connection of the webhook worker, re-subscribing its channels, cancel
// requests over a fresh connection. When PostgreSQL restarts, such work can end in
// a rejection nobody handles (a test with two sites on one pool crashed twice in
// six runs on an unhandled ECONNREFUSED), and Node ends the process for it. A lost
// connection is no reason for a service to die: the pool reconnects and the
// breaker (breaker.ts) answers for the database meanwhile.
//
// Only the database's own failures are forgiven: an error PostgreSQL sent
// (PostgresError), or a connection error that names the database's address (Node's
// connect errors and postgres.js's CONNECTION_* / CONNECT_TIMEOUT carry address and
// port; a DNS failure, the hostname). The same codes come from undici and any other
// socket (ECONNRESET, ETIMEDOUT, ENOTFOUND...): those are leaks, bugs, and still
// end the process as Node would, as does any other unhandled rejection.
//
// One exception, by time: a connection reset in the middle of its life is a bare
// socket error (`read ECONNRESET`, `write EPIPE`) that names no address, and
// postgres.js hands it on as it is. One that comes while a connection of the pool
// has just closed (postgres.js's onclose, pool.ts) is taken for that connection's.
// The full test suite saw it end a test site once in five runs (database-outage,
// a proxy cutting the connections).

/** Where the pool connects: its hosts and ports (postgres.js's parsed options), or a Unix socket path. */
export interface DatabaseAddress {
  hosts: readonly string[];
  ports: readonly number[];
  path?: string;
}

export function databaseAddressOf(sql: Sql): DatabaseAddress {
  const options = sql.options as unknown as { host: string[]; port: number[]; path?: string | false };
  return { hosts: options.host, ports: options.port, path: options.path || undefined };
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** Whether `reason` came from the connection to `database` (not from any other socket). */
function fromDatabase(reason: object, database: DatabaseAddress): boolean {
  if (reason instanceof postgres.PostgresError) return true;
  const { address, port, hostname } = reason as { address?: unknown; port?: unknown; hostname?: unknown };
  if (database.path !== undefined) return address === database.path;
  // A name that did not resolve: the error names it, with no address.
  if (typeof hostname === 'string' && address === undefined) return database.hosts.includes(hostname);
  if (typeof address !== 'string' || !database.ports.includes(Number(port))) return false;
  // A host given by name connects to whatever it resolves to: its port must do (localhost: a loopback address).
  return database.hosts.some((host) => host === address || (host === 'localhost' ? LOOPBACK.has(address) : isIP(host) === 0));
}

/** True for the errors of a connection to `database` that failed or was lost. */
export function isConnectionFailure(reason: unknown, database: DatabaseAddress): boolean {
  if (typeof reason !== 'object' || reason === null) return false;
  if (!(opensBreaker(reason) || hintsAtHang(reason) || isUnreachable(reason))) return false;
  return fromDatabase(reason, database);
}

/** How soon after a connection of the pool closed a bare socket error is taken for it. */
export const CLOSE_WINDOW_MS = 2000;
const BARE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/** A socket's own read or write error, which names no peer (see above). */
function isBareSocketError(reason: unknown): boolean {
  if (typeof reason !== 'object' || reason === null) return false;
  const { code, syscall, address } = reason as { code?: unknown; syscall?: unknown; address?: unknown };
  return address === undefined && (syscall === 'read' || syscall === 'write') && BARE_SOCKET_CODES.has(String(code));
}

/**
 * The process's unhandledRejection handler: logs a lost connection to `database`
 * (or a bare socket error within CLOSE_WINDOW_MS of `lastClose()`, the pool's last
 * connection closed), rethrows anything else.
 */
export function strayRejectionHandler(log: Logger, database: DatabaseAddress, lastClose: () => number = () => 0): (reason: unknown) => void {
  return (reason) => {
    const ours = isConnectionFailure(reason, database) || (isBareSocketError(reason) && Date.now() - lastClose() <= CLOSE_WINDOW_MS);
    if (!ours) throw reason;
    log.warn('a PostgreSQL connection failed outside any request; the pool reconnects', { code: (reason as { code?: unknown }).code });
  };
}

/** Installs strayRejectionHandler for the pool `sql` (entrypoints of a process with a pool, once). */
export function surviveStrayConnectionFailures(log: Logger, sql: Sql): void {
  process.on('unhandledRejection', strayRejectionHandler(log, databaseAddressOf(sql), () => lastConnectionCloseOf(sql)));
}
