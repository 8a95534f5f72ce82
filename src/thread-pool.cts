// Preloaded by `npm start` (`node --require ./dist/thread-pool.cjs dist/dev.js`):
// sizes libuv's thread pool for this process before anything uses it. libuv reads
// UV_THREADPOOL_SIZE once, at the pool's first use, and an ES module entrypoint
// uses the pool while its modules are read, before its first line runs; a CommonJS
// preload runs before that. Without it, on a machine with fewer threads than the
// image host wants, `npm start` would print advice the newcomer has no reason to take.
//
// The size is the image host's recommendedPoolSize (src/services/imghost/thread-budget.ts,
// a test holds the two equal): one decode per core, at most 8, plus 2 icon PNG
// renders, plus 2 threads kept for file I/O. A size already in the environment wins.
import { availableParallelism } from 'node:os';

const decodes = Math.max(1, Math.min(availableParallelism(), 8));
if ((process.env.UV_THREADPOOL_SIZE ?? '').trim() === '') process.env.UV_THREADPOOL_SIZE = String(decodes + 2 + 2);
