// pm2: `pm2 start scripts/deploy/ecosystem.config.cjs && pm2 save`.
// Environment comes from the process (or a .env file in the working directory,
// which both services read at start).
const { availableParallelism } = require('node:os');

// The image host's thread and memory budget, as src/services/imghost/thread-budget.ts
// computes it (a test holds the two equal): one image decode per core, at most 8;
// libuv's thread pool sized for those decodes plus 2 icon PNG renders plus 2 threads
// kept free for file I/O (the pool is read once, before any of our code runs, so
// only the environment can size it); and memory for a base of 384 MB plus 200 MB per
// decode running at once (a large preview while libwebp encodes it).
const decodes = Math.max(1, Math.min(availableParallelism(), 8));
const imghostThreads = decodes + 2 + 2;
const imghostMemoryMb = 384 + decodes * 200;

module.exports = {
  apps: [
    {
      name: 'launcher-site',
      script: 'dist/site.js',
      cwd: __dirname + '/../..',
      exec_mode: 'fork',
      instances: 1,
      // SIGTERM, then up to 10 s for requests in flight: give pm2 a bit more.
      kill_timeout: 15000,
      max_memory_restart: '512M',
      env: { NODE_ENV: 'production' },
    },
    {
      name: 'launcher-imghost',
      script: 'dist/imghost.js',
      cwd: __dirname + '/../..',
      exec_mode: 'fork',
      instances: 1,
      kill_timeout: 15000,
      max_memory_restart: `${imghostMemoryMb}M`,
      env: { NODE_ENV: 'production', UV_THREADPOOL_SIZE: String(imghostThreads) },
    },
  ],
};
