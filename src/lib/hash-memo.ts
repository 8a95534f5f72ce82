import { sha256Base64 } from './sha256-base64.js';
import { exactCopy } from './exact-buffer.js';
import { createLru, type LruOptions } from './lru.js';

// The SHA-256 (base64) of request bodies that come again byte for byte. A launcher
// asks the update check with the same body at every poll, and hashing its 12 KB was
// 11 µs of the 78 µs an answer cost the site (profiled under the benchmark, 26 Nov).
// So the hash of each body seen lately is kept with a copy of its bytes, found by a
// cheap fingerprint (the length and 16 words read at fixed places) and confirmed by
// comparing every byte (about 1 µs for 12 KB): a body that shares only the
// fingerprint gets its own hash, and takes the place. Bounded by count and bytes,
// the least recently used first out (lib/lru.ts).

/** Bodies kept at most, and their bytes in all. */
export type HashMemoOptions = LruOptions;

export interface HashMemo {
  /** sha256Base64(bytes), from the memo when these bytes were hashed lately. */
  hashOf(bytes: Buffer): string;
  readonly size: number;
  readonly bytes: number;
}

interface Entry {
  bytes: Buffer;
  hash: string;
}

const SAMPLES = 16;

/** The length and SAMPLES 32-bit words spread over the bytes, mixed into one number. */
export function fingerprintOf(bytes: Buffer): number {
  const length = bytes.length;
  let mixed = length | 0;
  if (length < 4) {
    for (const byte of bytes) mixed = (Math.imul(mixed, 31) + byte) | 0;
    return mixed;
  }
  const last = length - 4;
  for (let i = 0; i < SAMPLES; i++) mixed = (Math.imul(mixed, 0x9e3779b1) ^ bytes.readInt32LE(Math.floor((last * i) / (SAMPLES - 1)))) | 0;
  return mixed;
}

export function createHashMemo(options: HashMemoOptions): HashMemo {
  const entries = createLru<Entry, number>(options);
  return {
    hashOf(bytes) {
      const fingerprint = fingerprintOf(bytes);
      const found = entries.get(fingerprint);
      if (found !== undefined && found.bytes.equals(bytes)) return found.hash;
      const hash = sha256Base64(bytes);
      if (bytes.length > options.maxBytes) {
        entries.delete(fingerprint);
        return hash;
      }
      // A copy in memory of its own: the body may be a view of a larger buffer, and a
      // short Buffer.from copy would be a slice of a shared 8 KiB pool slab (exact-buffer.ts).
      entries.set(fingerprint, { bytes: exactCopy(bytes), hash }, bytes.length);
      return hash;
    },
    get size() {
      return entries.size;
    },
    get bytes() {
      return entries.bytes;
    },
  };
}
