import postgres from 'postgres';
import { wallClock, type Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import { attachBreaker, breakerOf } from './breaker.js';
import { IDLE_IN_TRANSACTION_TIMEOUT_MS, STATEMENT_TIMEOUT_MS } from './deadline.js';

import type { Sql } from './sql.js';

export type { Sql };

export const POOL_SIZE = 10;
/**
 * A new connection must be ready (TCP, TLS, authentication) within this. A server
 * that accepts but does not answer (restarting behind a port that already
 * listens, a black-holed network) then fails the waiting query with
 * CONNECT_TIMEOUT, which opens the breaker (breaker.ts), instead of holding it
 * until the 5 s query deadline: a 2-minute soak with PostgreSQL restarted had a
 * list wait 5.1 s for a 503 seven seconds after the restart.
 */
export const CONNECT_TIMEOUT_S = 2;
export const STARTUP_WAIT_MS = 30_000;
/**
 * Longest a closed connection waits before it connects again, in seconds.
 * postgres.js's own backoff grows with every failed connect of the pool (3^n / 100 s,
 * up to 20 s) and is reset only by a connect that succeeds: after a 2-second
 * outage probed every 250 ms its connections waited 5-20 s before trying the
 * server that was already back, and store lists queued on them got 503 after
 * their 5 s deadline (a soak at 100/s). The breaker (breaker.ts) already keeps
 * a down server from a storm of connects: only its probe and queries that find
 * no connection ask for one, so a short wait is enough.
 */
export const RECONNECT_MAX_S = 0.25;

/** The wait before a closed connection connects again: growing, jittered, at most RECONNECT_MAX_S. */
export function reconnectDelay(retries: number): number {
  return (0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, RECONNECT_MAX_S);
}

export interface PoolOptions {
  /**
   * PostgreSQL's statement_timeout on every connection; 0 turns it off, for batch
   * scripts (seeding) whose statements may rightly run long. Serving keeps the default.
   */
  statementTimeoutMs?: number;
  /** Hears the pool's breaker open (true) and close (false): breaker.ts. */
  onBreaker?: (down: boolean) => void;
  /** The pool's clock (clockOf): wall time unless a test moves it. */
  now?: Clock;
}

/**
 * What an outage of a pool is measured by: when its breaker opened, when a
 * generation read came back, and so how stale a kept answer is and whether
 * STALE_IF_ERROR_SECONDS is over (src/services/site/kept-answers.ts). Per pool, as the breaker,
 * the generation reader and the outage copies are, so a test that moves it ends an
 * outage's window without sleeping through it.
 */
const clocks = new WeakMap<Sql, Clock>();

/** The clock `sql` was made with (createPool's `now`); wall time for any other handle. */
export function clockOf(sql: Sql): Clock {
  return clocks.get(sql) ?? wallClock;
}

/**
 * One pool per process. postgres.js reconnects on its own, so after PostgreSQL
 * comes back the next query simply works: no restart needed. The pool's breaker
 * (breaker.ts) refuses queries at once while PostgreSQL is unreachable.
 */
/** When each pool last lost or closed one of its connections (Date.now()), for stray-rejections.ts. */
const lastCloses = new WeakMap<Sql, number>();

/** When a connection of `sql` last closed (Date.now()); 0 when none has. */
export function lastConnectionCloseOf(sql: Sql): number {
  return lastCloses.get(sql) ?? 0;
}

export function createPool(url: string, options: PoolOptions = {}): Sql {
  let made: Sql | undefined;
  const sql = postgres(url, {
    max: POOL_SIZE,
    connect_timeout: CONNECT_TIMEOUT_S,
    backoff: reconnectDelay,
    idle_timeout: 60,
    max_lifetime: 60 * 30,
    onnotice: () => {},
    onclose: () => {
      if (made !== undefined) lastCloses.set(made, Date.now());
    },
    // Sent in the startup message, so they hold for every statement without a round trip.
    connection: {
      application_name: 'launcher-web',
      statement_timeout: options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS,
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    },
    debug: false,
    transform: { undefined: null },
  }) as unknown as Sql;
  made = sql;
  const now = options.now ?? wallClock;
  clocks.set(sql, now);
  attachBreaker(sql, options.onBreaker, now);
  return sql;
}

/**
 * Waits until PostgreSQL answers, logging each failed try, for up to `waitMs`;
 * stops waiting when `signal` is aborted (a shutdown signal during start-up).
 */
export async function waitForDatabase(sql: Sql, log: Logger, waitMs = STARTUP_WAIT_MS, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (let attempt = 1; ; attempt++) {
    try {
      await sql`select 1`;
      if (attempt > 1) log.info('database is reachable', { attempt });
      return;
    } catch (error) {
      const left = deadline - Date.now();
      if (signal?.aborted) throw error;
      if (left <= 0) throw new Error(`PostgreSQL is not reachable after ${Math.round(waitMs / 1000)} s: ${describe(error)}`);
      log.warn('waiting for PostgreSQL', { attempt, reason: describe(error) });
      await sleep(Math.min(1000 * attempt, 3000, left), signal);
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** True when PostgreSQL answers within `timeoutMs`: for /readyz. False at once while the pool's breaker is open. */
export async function databaseIsReady(sql: Sql, timeoutMs = 2000): Promise<boolean> {
  if (breakerOf(sql)?.downSince) return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([sql`select 1`.then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return (error as Error & { code?: string }).code ?? error.message;
  return String(error);
}
