import { wallClock, type Clock } from '../../../lib/clock.js';
import { createLru } from '../../../lib/lru.js';

// Names the bucket said it does not hold, remembered a few seconds: without it every
// request for an unknown md5 cost one HEAD per image format, and for an unknown
// package two, however often it was asked. Kept short because another host may
// store the object at any moment; an upload on this process clears its miss at once.

/** How long a miss is believed. */
export const MISS_MS = 5_000;
/** Misses remembered at most (about 150 bytes each with the key). */
const MAX_MISSES = 10_000;

export interface MissMemory {
  /** The clear count now: pass it to remember() from a lookup started here. */
  readonly epoch: number;
  /** Whether `key` was missing a moment ago. */
  has(key: string): boolean;
  /**
   * Remembers that `key` is missing, unless something was stored (clear()) since the
   * lookup began at `epoch`: its HEAD may have raced that upload.
   */
  remember(key: string, epoch: number): void;
  /** `key` is being stored here: forget its miss now. */
  clear(key: string): void;
}

export interface MissMemoryOptions {
  /** How long a miss is believed, ms. */
  ms?: number;
  maxEntries?: number;
  /** The clock misses are timed by; tests pass one they move. */
  now?: Clock;
}

export function createMissMemory(options: MissMemoryOptions = {}): MissMemory {
  const { ms = MISS_MS, maxEntries = MAX_MISSES, now = wallClock } = options;
  const misses = createLru<number>({ maxEntries, maxBytes: Infinity });
  let clears = 0;
  return {
    get epoch() {
      return clears;
    },
    has(key) {
      const until = misses.get(key);
      if (until === undefined) return false;
      if (until > now()) return true;
      misses.delete(key);
      return false;
    },
    remember(key, epoch) {
      if (epoch === clears) misses.set(key, now() + ms);
    },
    clear(key) {
      clears++;
      misses.delete(key);
    },
  };
}
