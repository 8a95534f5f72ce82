import { wallClock, type Clock } from '../lib/clock.js';
import { opensBreaker } from './connection-errors.js';
import type { Sql } from './sql.js';

// A circuit breaker per pool. Once one query finds PostgreSQL unreachable (a
// refused or reset connection, a server shutting down or starting: deadline.ts),
// every later query is refused at once with 503 UNAVAILABLE instead of each
// request finding it out again, and the site serves the visitor answers it holds
// (src/services/site/kept-answers.ts). One probe at a time asks `select 1` in the background;
// the first query that succeeds, the probe's or one still under way, closes it.
//
// A timeout (a connect that did not finish in time, a sent query that outlived its
// deadline) only makes the breaker suspect a hung server: a busy one is slow too,
// and opening on it refused every store read of a healthy site (a 3-minute soak at
// 100/s, load 8: one CONNECT_TIMEOUT, 36 reads answered 503 with no fault
// running). It opens only when a confirming probe says so: no query of the pool,
// the probe's or any other, succeeded within CONFIRM_TIMEOUT_MS of the suspicion.
//
// Open or closed is one number, read by every query; a success adds one increment.

/** How often an open breaker asks PostgreSQL whether it is back. */
export const PROBE_INTERVAL_MS = 250;
/** A probe that has not answered in this long has failed; the next one starts. */
export const PROBE_TIMEOUT_MS = 2000;
/** A suspected hang (a timeout) opens the breaker when nothing succeeded for this long after it. */
export const CONFIRM_TIMEOUT_MS = 3000;

export interface Breaker {
  /** When PostgreSQL was found unreachable (the pool's clock, pool.ts clockOf), 0 while it answers. */
  readonly downSince: number;
  /** A query found PostgreSQL unreachable: refuse the next ones at once, and probe. */
  trip(): void;
  /** A query timed out: open only if a probe confirms that nothing answers (see above). */
  suspect(): void;
  /** A query succeeded: PostgreSQL answers. */
  succeeded(): void;
}

const breakers = new WeakMap<Sql, Breaker>();

/** The breaker of a pool made by createPool; undefined for other handles (a transaction's). */
export function breakerOf(sql: Sql): Breaker | undefined {
  return breakers.get(sql);
}

/** Gives `sql` a breaker; `onChange` hears it open and close (for the log); `now` dates the opening. */
export function attachBreaker(sql: Sql, onChange: (down: boolean) => void = () => {}, now: Clock = wallClock): Breaker {
  let downSince = 0;
  let probing: NodeJS.Timeout | undefined;
  let probeInFlight = false;
  // Queries that succeeded, ever: a suspicion is cleared when this moves.
  let successes = 0;
  let confirming = false;

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
      confirming = false;
      downSince = now();
      onChange(true);
      // Unref'd: an open breaker never keeps a process alive that is otherwise done.
      probing = setInterval(probe, PROBE_INTERVAL_MS).unref();
      // At once too: one connection reset while the server is fine (a firewall, a
      // terminated backend) keeps the breaker open for a round trip, not 250 ms.
      probe();
    },
    succeeded() {
      successes++;
      if (downSince !== 0) close();
    },
    suspect() {
      if (downSince !== 0 || confirming) return;
      confirming = true;
      const seen = successes;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CONFIRM_TIMEOUT_MS);
      });
      // Straight through postgres.js, as the probes of an open breaker. Refused or
      // reset, it decides at once; another failure (its own connect timeout) waits
      // for the rest of the window, in which other queries may still succeed.
      const asked = Promise.resolve(sql`select 1`).then(() => {
        successes++;
      }, (error: unknown) => (opensBreaker(error) ? undefined : late));
      // Whichever comes first: the probe settles, or the confirming time is out.
      void Promise.race([asked, late]).then(() => {
        clearTimeout(timer);
        if (!confirming) return;
        confirming = false;
        if (successes === seen) breaker.trip();
      });
    },
  };
  breakers.set(sql, breaker);
  return breaker;
}
