// A least-recently-used cache bounded by entry count AND by bytes: entry count alone
// lets a few 1024-px PNGs take far more memory than intended, bytes alone lets
// thousands of tiny SVGs cost more in Map overhead than in content. A Map keeps
// insertion order, so re-inserting on read makes its first key the least recent.

export interface LruOptions {
  maxEntries: number;
  maxBytes: number;
}

/** Hears an entry pushed out to make room (not one replaced, deleted or cleared). */
export type Evicted<V, K = string> = (key: K, value: V, bytes: number) => void;

export interface Lru<V, K = string> {
  get(key: K): V | undefined;
  /** Values larger than maxBytes on their own are not kept at all. */
  set(key: K, value: V, bytes?: number): void;
  delete(key: K): void;
  clear(): void;
  readonly size: number;
  readonly bytes: number;
}

export function createLru<V, K = string>(options: LruOptions, onEvict?: Evicted<V, K>): Lru<V, K> {
  const entries = new Map<K, { value: V; bytes: number }>();
  let total = 0;
  /** The most recently used key: reading it again needs no reordering. */
  let newest: K | undefined;

  const remove = (key: K) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    total -= entry.bytes;
    if (key === newest) newest = undefined;
  };

  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      // A hot key read again and again (one icon in a page, a benchmark) skips the
      // delete and re-insert, which churn the Map's table on every read.
      if (key !== newest) {
        entries.delete(key);
        entries.set(key, entry);
        newest = key;
      }
      return entry.value;
    },
    set(key, value, bytes = 0) {
      remove(key);
      if (bytes > options.maxBytes || options.maxEntries < 1) return;
      entries.set(key, { value, bytes });
      newest = key;
      total += bytes;
      for (const oldest of entries.keys()) {
        if (entries.size <= options.maxEntries && total <= options.maxBytes) break;
        const pushedOut = onEvict === undefined ? undefined : entries.get(oldest);
        remove(oldest);
        if (pushedOut !== undefined) onEvict!(oldest, pushedOut.value, pushedOut.bytes);
      }
    },
    delete(key) {
      remove(key);
    },
    clear() {
      entries.clear();
      total = 0;
      newest = undefined;
    },
    get size() {
      return entries.size;
    },
    get bytes() {
      return total;
    },
  };
}
