import { createLru } from '../../lib/lru.js';
import { packAnswer, type PackedAnswer, type PreparedAnswer } from '../../http/answer/index.js';
import type { Sql } from '../../db/pool.js';

// Outage copies (kept-answers.ts says when they are served): the visitors' answers
// that a cache of kept answers pushed out to make room, of the visibility generation
// last read, so that a visitor still gets what this process served them while
// PostgreSQL is away, however much churn went through the caches since.
//
// One store per database pool, so per process in production: the store's lists and
// details, the versions' answers and the launchers' update checks share one bound,
// and an operator reads one figure for what the process keeps for outages
// (site_outage_copies_bytes in /metrics). Each is kept packed (http/answer/prepared.ts, packAnswer:
// gzip only, about a tenth of a JSON list): copies are many and rarely read, and the
// bound is what a process grows by after its caches fill.

export interface OutageCopy {
  /** The store generation it was built under. */
  generation: bigint;
  /** The visibility generation read with it (sql/008). */
  visibility: bigint;
  /** When it was last known current (the pool's clock, db/pool.ts clockOf). */
  servedAt: number;
  /** A hash of the answer's bytes, for a keeper that builds answers again and packs only those that changed (ratings pages). */
  digest?: string;
  packed: PackedAnswer;
}

export interface OutageCopies {
  /** Keeps `answer`, packed, under `key` (the caller's name in it: several caches share the store). */
  keep(key: string, copy: Omit<OutageCopy, 'packed'>, answer: PreparedAnswer): void;
  find(key: string): OutageCopy | undefined;
  /** The answer rebuilt and held by its cache again: one store at a time. */
  drop(key: string): void;
  readonly bytes: number;
  readonly size: number;
}

export interface OutageCopiesBounds {
  maxBytes: number;
  maxEntries: number;
}

/**
 * Bytes as counted (packed bytes, key and an entry's weight): what a process may grow
 * by once its caches are full. A 2,000-plugin catalogue's details, lists, searches and
 * a few hundred launchers' update checks fit.
 */
export const OUTAGE_COPIES_MAX_BYTES = 16 * 1024 * 1024;
/** And by count: endless distinct searches of a few hundred bytes each must not grow it past the bytes it counts. */
export const OUTAGE_COPIES_MAX_ENTRIES = 16_384;
/**
 * What an entry weighs beside its packed bytes and key (the copy and packed records,
 * the Buffer's own objects, the map's slot): measured at about 400 bytes of heap.
 */
const ENTRY_OVERHEAD_BYTES = 512;

export const DEFAULT_OUTAGE_COPIES: OutageCopiesBounds = { maxBytes: OUTAGE_COPIES_MAX_BYTES, maxEntries: OUTAGE_COPIES_MAX_ENTRIES };

export function createOutageCopies(bounds: OutageCopiesBounds = DEFAULT_OUTAGE_COPIES): OutageCopies {
  const copies = createLru<OutageCopy>(bounds);
  return {
    keep(key, copy, answer) {
      const packed = packAnswer(answer);
      // Field by field: the caller's record (a kept answer) also holds the answer itself, which a spread would keep alive.
      const kept: OutageCopy = { generation: copy.generation, visibility: copy.visibility, servedAt: copy.servedAt, digest: copy.digest, packed };
      copies.set(key, kept, packed.bytes.length + key.length + ENTRY_OVERHEAD_BYTES);
    },
    find: (key) => copies.get(key),
    drop: (key) => copies.delete(key),
    get bytes() {
      return copies.bytes;
    },
    get size() {
      return copies.size;
    },
  };
}

const byPool = new WeakMap<Sql, OutageCopies>();

/** The outage copies of the process that uses `sql` (made with the default bounds on first use). */
export function outageCopiesOf(sql: Sql): OutageCopies {
  let copies = byPool.get(sql);
  if (copies === undefined) byPool.set(sql, (copies = createOutageCopies()));
  return copies;
}
