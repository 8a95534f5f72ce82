import { coalescedRead } from '../../lib/coalesced-read.js';
import { runNamed } from '../../db/queries.js';
import { clockOf, type Sql } from '../../db/pool.js';
import type { SiteContext } from './context.js';

// The numbers that tell a site process whether what it kept is still exact: the
// store's generation (kept lists and details, src/services/site/kept-answers.ts) and the
// sessions' (kept session lookups, auth/kept-sessions.ts). Both live in PostgreSQL
// and move in the committing transaction, so they are exact across processes. They
// are read in one statement, shared by the requests that arrive while reads are on
// their way (lib/coalesced-read.ts: never a value read before a caller arrived; two
// reads overlap, so a request waits about one round trip), and a
// request's guard and handler share the read started for that request: a logged-in
// request whose session and answer are kept waits for that one shared read and
// sends no query of its own.

export interface Generations {
  store: bigint;
  /** Moves only with what a visitor may see (sql/008): answers of an older one are never served stale. */
  visibility: bigint;
  /** Moves with every rating, reply and user name or avatar change (sql/008): kept ratings pages (ratings/kept-pages.ts). */
  ratings: bigint;
  sessions: bigint;
  /** When the read came back (the pool's clock, clockOf): answers of `store` were current then. */
  at: number;
}

export interface GenerationReader {
  /** A read that started after this call (shared with the callers around it). */
  read(): Promise<Generations>;
  /** The read of this request: started at its first call for the request, shared by its later ones. */
  readFor(ctx: SiteContext): Promise<Generations>;
  /**
   * The generations of the newest read that succeeded on this process, and when it
   * came back: what this process last knew to be current. While the database is
   * away, only answers of that visibility generation may be served stale
   * (kept-answers.ts).
   */
  lastRead(): LastRead | undefined;
}

export interface LastRead {
  store: bigint;
  visibility: bigint;
  /** When the read came back (the pool's clock, clockOf): answers of `store` were current then. */
  at: number;
}

const readers = new WeakMap<Sql, GenerationReader>();

/** The reader of the pool `sql`: one per pool, so every feature of a process shares its reads. */
export function generationsOf(sql: Sql): GenerationReader {
  let reader = readers.get(sql);
  if (reader === undefined) {
    reader = createReader(sql);
    readers.set(sql, reader);
  }
  return reader;
}

function createReader(sql: Sql): GenerationReader {
  const now = clockOf(sql);
  let last: LastRead | undefined;
  const read = coalescedRead(() =>
    runNamed(sql, 'site/generations', {}).then(([row]): Generations => {
      // Both tables hold their one row from their migration on (sql/008_generations.sql).
      if (row === undefined) throw new Error('site/generations: store_generation or session_generation has no row');
      const generations: Generations = { store: BigInt(row.store), visibility: BigInt(row.visibility), ratings: BigInt(row.ratings), sessions: BigInt(row.sessions), at: now() };
      // A slower read that started earlier never takes the place of a newer one (both numbers only grow).
      if (last === undefined || last.store < generations.store || (last.store === generations.store && last.visibility <= generations.visibility)) {
        last = generations;
      }
      return generations;
    }),
  );
  const ofRequest = new WeakMap<SiteContext, Promise<Generations>>();
  return {
    read,
    lastRead: () => last,
    readFor(ctx) {
      let started = ofRequest.get(ctx);
      if (started === undefined) {
        started = read();
        // Awaited by whoever asked; a request refused before that (a bad token) leaves it unawaited, and that is no error.
        started.catch(() => {});
        ofRequest.set(ctx, started);
      }
      return started;
    },
  };
}
