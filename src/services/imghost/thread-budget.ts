import { availableParallelism } from 'node:os';

// sharp runs every decode, conversion and PNG render on a thread of libuv's pool,
// the same pool that carries every file read, write, stat and fsync. With the
// pool's default of 4 threads and one decode per core, two big previews and two
// upload checks took all four on a 4-core host, and an uncached icon (a file read)
// waited 1.2 s behind them. So sharp's work is sized to leave threads for file I/O.
//
// The pool size is read from UV_THREADPOOL_SIZE once, when libuv first uses the
// pool. In an ES module entrypoint that happens while the modules are being read,
// before any of our code runs (checked on Node 20), so the entrypoint cannot raise
// it for itself: the deployment sets it (scripts/deploy/), `npm start` preloads
// src/thread-pool.cts which does, and here the decode concurrency is fitted into
// whatever pool we actually got.

/**
 * sharp renders at most this many PNGs at once (icons/icon-renderer.ts); the
 * machine has few cores. Set here, beside the decodes, as it shares their threads.
 */
export const MAX_CONCURRENT_PNG_RENDERS = 2;
/** Pool threads never given to sharp, so file I/O always finds one free. */
export const IO_RESERVED_THREADS = 2;
/**
 * Decodes at once at most, whatever the core count: a preview of a large original
 * holds about 200 MB while libwebp encodes it (see imaging.ts), so this also caps
 * the memory the process needs (ecosystem.config.cjs sizes its limit from it).
 */
export const MAX_DECODE_CONCURRENCY = 8;
/**
 * Memory the process needs: a base (Node, sharp's library, the icon caches of
 * icons/limits.ts, the lookup cache) plus one preview's worth per decode slot.
 * scripts/deploy/ecosystem.config.cjs computes the same (a test holds them equal).
 */
export const BASE_MEMORY_MB = 384;
export const MEMORY_PER_DECODE_MB = 200;
export const memoryLimitMb = (decodes: number) => BASE_MEMORY_MB + decodes * MEMORY_PER_DECODE_MB;

/** libuv's default and its ceiling (uv_threadpool.c). */
const DEFAULT_POOL_SIZE = 4;
const MAX_POOL_SIZE = 1024;

/** The pool size libuv uses for this environment, as libuv itself reads it. */
export function libuvPoolSize(env: Record<string, string | undefined> = process.env): number {
  const value = Number.parseInt(env.UV_THREADPOOL_SIZE ?? '', 10);
  if (!Number.isFinite(value)) return DEFAULT_POOL_SIZE;
  return Math.min(MAX_POOL_SIZE, Math.max(1, value));
}

export interface ThreadBudget {
  poolSize: number;
  /** Decodes (upload checks and WebP conversions) at once. */
  decodeConcurrency: number;
  /** Decodes the cores would allow, had the pool room for them. */
  wantedDecodes: number;
  /** The UV_THREADPOOL_SIZE that gives every wanted decode a thread. */
  recommendedPoolSize: number;
}

export function threadBudget(poolSize = libuvPoolSize(), cores = availableParallelism()): ThreadBudget {
  const wantedDecodes = Math.max(1, Math.min(cores, MAX_DECODE_CONCURRENCY));
  const room = poolSize - IO_RESERVED_THREADS - MAX_CONCURRENT_PNG_RENDERS;
  return {
    poolSize,
    // At least one, even in a pool too small for the reserve: uploads must work.
    decodeConcurrency: Math.max(1, Math.min(wantedDecodes, room)),
    wantedDecodes,
    recommendedPoolSize: wantedDecodes + MAX_CONCURRENT_PNG_RENDERS + IO_RESERVED_THREADS,
  };
}
