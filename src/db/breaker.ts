import type { Sql } from './pool.js';

// A circuit breaker per pool. Once one query finds PostgreSQL unreachable (a
// refused or reset connection, a server shutting down, a connect timeout, a sent
// query that outlived its deadline: deadline.ts), every later query is refused at
// once with 503 UNAVAILABLE instead of each request finding it out again (or
// waiting on a hung server), and the site serves the visitor answers it holds
// (store/kept-answers.ts). One probe at a time asks `select 1` in the background;
// the first query that succeeds, the probe's or one still under way, closes it.
//
// Open or closed is one number, read by every query: nothing else is added to a
// query while the database answers.

/** How often an open breaker asks PostgreSQL whether it is back. */
export const PROBE_INTERVAL_MS = 250;
/** A probe that has not answered in this long has failed; the next one starts. */
export const PROBE_TIMEOUT_MS = 2000;

export interface Breaker {
  /** Date.now() when PostgreSQL was found unreachable, 0 while it answers. */
  readonly downSince: number;
  /** A query found PostgreSQL unreachable: refuse the next ones at once, and probe. */
  trip(): void;
  /** A query succeeded: PostgreSQL answers. */
  succeeded(): void;
}

const breakers = new WeakMap<Sql, Breaker>();

/** The breaker of a pool made by createPool; undefined for other handles (a transaction's). */
export function breakerOf(sql: Sql): Breaker | undefined {
  return breakers.get(sql);
}

/** Gives `sql` a breaker; `onChange` hears it open and close (for the log). */
export function attachBreaker(sql: Sql, onChange: (down: boolean) => void = () => {}): Breaker {
  let downSince = 0;
  let probing: NodeJS.Timeout | undefined;
  let probeInFlight = false;

  const close = () => {
    if (downSince === 0) return;
    downSince = 0;
    clearInterval(probing);
    probing = undefined;
    onChange(false);
  };
  const probe = () => {
    if (probeInFlight) return;
    probeInFlight = true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('probe timed out')), PROBE_TIMEOUT_MS);
    });
    // Straight through postgres.js, not runQuery: the probe is the one query an open breaker lets by.
    Promise.race([sql`select 1`, late]).then(close, (error: unknown) => {
      // The pool was ended on purpose (shutdown): nothing will come back.
      if ((error as { code?: unknown }).code === 'CONNECTION_ENDED') {
        clearInterval(probing);
        probing = undefined;
      }
    }).finally(() => {
      clearTimeout(timer);
      probeInFlight = false;
    });
  };
  const breaker: Breaker = {
    get downSince() {
      return downSince;
    },
    trip() {
      if (downSince !== 0) return;
      downSince = Date.now();
      onChange(true);
      // Unref'd: an open breaker never keeps a process alive that is otherwise done.
      probing = setInterval(probe, PROBE_INTERVAL_MS).unref();
      // At once too: one connection reset while the server is fine (a firewall, a
      // terminated backend) keeps the breaker open for a round trip, not 250 ms.
      probe();
    },
    succeeded() {
      if (downSince !== 0) close();
    },
  };
  breakers.set(sql, breaker);
  return breaker;
}
