// GET /api/info of the built site (`node dist/site.js`, its request log written to a
// file) against node:http servers answering the same bytes and headers (the plain
// reference and the bare one); see scripts/bench/harness.ts for how it is measured.
// Target: server CPU per request at most the plain reference's / 0.85.
//
//   npx tsc -p test/tsconfig.json && node .test-build/scripts/bench-site.js
//
// The site needs a database to start: DATABASE_URL when given, else the embedded
// PostgreSQL it starts by itself (kept under $TMPDIR/launcher-web-bench between
// runs). /api/info never touches it.

import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { projectRoot } from '../src/lib/project-root.js';
import { benchDir, buildDist, captureAnswer, compare, freePort, printComparisons, startPinned, startReferences, type Server } from './bench/harness.js';

const TARGET = 0.85;
const root = projectRoot();

async function main(): Promise<void> {
  // BENCH_SKIP_BUILD=1 measures the dist/ already built.
  if (process.env.BENCH_SKIP_BUILD !== '1') buildDist();
  const dir = await benchDir('bench-site-');
  const servers: Array<Pick<Server, 'stop'>> = [];
  try {
    const port = await freePort();
    const site = await startPinned({
      name: 'site',
      args: [join(root, 'dist', 'site.js')],
      cwd: dir, // no stray .env
      port,
      logFile: join(dir, 'site.log'),
      env: {
        HOST: '127.0.0.1',
        SITE_PORT: String(port),
        DATA_DIR: join(tmpdir(), 'launcher-web-bench'),
        LAUNCHER_CONFIG: join(root, 'config', 'launcher.example.json'),
        LOG_LEVEL: 'info',
        ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
      },
    });
    servers.push(site);
    const fresh = await captureAnswer(site.origin, '/api/info');
    const etag = fresh.headers.find(([name]) => name === 'etag')?.[1];
    if (!etag) throw new Error('/api/info has no ETag');
    const revalidated = await captureAnswer(site.origin, '/api/info', { 'if-none-match': etag });
    const refs200 = await startReferences('info', fresh, dir);
    servers.push(refs200);
    const refs304 = await startReferences('info-304', revalidated, dir);
    servers.push(refs304);
    const comparisons = [
      await compare({ what: 'GET /api/info 200', ours: site, ...refs200, path: '/api/info', target: TARGET }),
      await compare({
        what: 'GET /api/info 304 (If-None-Match)',
        ours: site,
        ...refs304,
        path: '/api/info',
        headers: { 'if-none-match': etag },
        status: 304,
        target: TARGET,
      }),
    ];
    printComparisons('node dist/site.js, request log to a file, vs plain and bare node:http', comparisons);
  } finally {
    for (const server of servers.reverse()) await server.stop();
  }
}

await main();
