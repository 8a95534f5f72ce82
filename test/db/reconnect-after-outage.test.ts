// A pool reconnects promptly once PostgreSQL is back, however many connects failed
// while it was down (src/db/pool.ts, RECONNECT_MAX_S).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPool, POOL_SIZE } from '../../src/db/pool.js';
import { startPgProxy } from '../helpers/pg-proxy.js';

/** Time allowed on a busy test machine. */
const SLACK_MS = 1500;

// Defect: postgres.js's default backoff grows with every failed connect of the pool
// (up to 20 s) until one succeeds, so after a 2-second outage probed every 250 ms
// the connections waited 5-20 s before trying the server that was back, and store
// lists queued on them got 503 after their deadline (a soak at 100/s).
test('after many failed connects, every connection answers within a second once PostgreSQL is back', async () => {
  const proxy = await startPgProxy(process.env.TEST_DB_URL!);
  await proxy.stop();
  const sql = createPool(proxy.url);
  try {
    // Every connection of the pool refused once: the backoff's count climbs to POOL_SIZE.
    const refused = await Promise.allSettled(Array.from({ length: POOL_SIZE }, () => sql`select 1`));
    assert.ok(refused.every((r) => r.status === 'rejected'), 'refused while the server is away');
    await proxy.start();
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer within 5 s of the server coming back')), 5000);
    });
    try {
      // One query per connection: each reconnects after its own wait.
      const answers = await Promise.race([Promise.all(Array.from({ length: POOL_SIZE }, () => sql`select 1 as one`)), late]);
      assert.ok(answers.every((rows) => rows[0]?.one === 1));
    } finally {
      clearTimeout(timer);
    }
    const ms = performance.now() - started;
    assert.ok(ms < 1000 + SLACK_MS, `answered after ${Math.round(ms)} ms`);
  } finally {
    await sql.end({ timeout: 1 });
    await proxy.stop();
  }
});

test.run();
