// The pool's circuit breaker (src/db/breaker.ts): a hung server opens it once one
// sent query outlives its deadline and a probe confirms nothing answers, after which every query is refused at once
// (503 UNAVAILABLE, nothing sent) and /readyz's check is false at once; it closes
// by itself when the server answers again. A connection reset on a live server
// keeps it open for a round trip only. A timeout on a busy but healthy server
// never opens it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breakerOf, CONFIRM_TIMEOUT_MS } from '../../src/db/breaker.js';
import { QUERY_TIMEOUT_MS, withDeadline } from '../../src/db/deadline.js';
import { createPool, databaseIsReady } from '../../src/db/pool.js';
import { runNamed } from '../../src/db/queries.js';
import { HttpError } from '../../src/http/errors.js';
import { startPgProxy } from '../helpers/pg-proxy.js';

/** Time allowed beyond a bound on a busy test machine. */
const SLACK_MS = 1500;

const generation = (sql: ReturnType<typeof createPool>) => runNamed(sql, 'store/generation', { viewer_id: null });

async function rejection(pending: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  try {
    await pending;
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
  throw new Error('the query should have failed');
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return condition();
}

test('a hung server: the first query waits out its deadline, a probe confirms and opens the breaker; the next ones are refused at once; it closes when the server answers', async () => {
  const proxy = await startPgProxy(process.env.TEST_DB_URL!);
  const sql = createPool(proxy.url);
  const breaker = breakerOf(sql)!;
  try {
    await generation(sql);
    assert.is(breaker.downSince, 0);
    proxy.hang();
    const first = await rejection(generation(sql));
    assert.ok(first.error instanceof HttpError && first.error.status === 503);
    assert.ok(first.ms >= QUERY_TIMEOUT_MS - 50 && first.ms < QUERY_TIMEOUT_MS + SLACK_MS, `${first.ms} ms`);
    assert.ok(await until(() => breaker.downSince > 0, CONFIRM_TIMEOUT_MS + SLACK_MS), 'the breaker is open');

    const next = await rejection(generation(sql));
    assert.ok(next.error instanceof HttpError && next.error.status === 503 && next.error.code === 'UNAVAILABLE');
    assert.ok(next.error.headers?.['Retry-After']);
    assert.ok(next.ms < 200, `refused in ${next.ms} ms`);
    const started = performance.now();
    assert.is(await databaseIsReady(sql), false);
    assert.ok(performance.now() - started < 200, '/readyz decides at once');

    proxy.resume();
    assert.ok(await until(() => breaker.downSince === 0, 3000 + SLACK_MS), 'the probe closed the breaker');
    await generation(sql);
  } finally {
    proxy.resume();
    await sql.end({ timeout: 1 });
    await proxy.stop();
  }
});

test('a connection reset while the server is fine keeps the breaker open for a probe\'s round trip only', async () => {
  const proxy = await startPgProxy(process.env.TEST_DB_URL!);
  const sql = createPool(proxy.url);
  const breaker = breakerOf(sql)!;
  try {
    await generation(sql);
    // Every open connection cut, the proxy still listening: the server is fine.
    await proxy.stop();
    await proxy.start();
    breaker.trip();
    assert.ok(breaker.downSince > 0);
    assert.ok(await until(() => breaker.downSince === 0, 200 + SLACK_MS), 'closed by a probe');
    await generation(sql);
  } finally {
    await sql.end({ timeout: 1 });
    await proxy.stop();
  }
});

// Defect: one CONNECT_TIMEOUT (a new connection's handshake past 2 s on a loaded
// machine) opened the breaker of a healthy database, and every store read of the
// site got 503 for a probe's round trip (a soak at 100/s: 36 reads, no fault running).
test('a connect timeout on a busy but healthy database does not open the breaker', async () => {
  const sql = createPool(process.env.TEST_DB_URL!);
  const breaker = breakerOf(sql)!;
  let running = true;
  let answered = 0;
  // The site's traffic goes on beside the timeout.
  const traffic = (async () => {
    while (running) {
      await generation(sql);
      answered++;
    }
  })();
  try {
    await generation(sql);
    const timedOut = Object.assign(new Error('write CONNECT_TIMEOUT'), { code: 'CONNECT_TIMEOUT' });
    const failed = await rejection(withDeadline(Promise.reject(timedOut), QUERY_TIMEOUT_MS, undefined, breaker));
    assert.ok(failed.error instanceof HttpError && failed.error.status === 503, 'the query itself gets the 503');
    assert.is(breaker.downSince, 0, 'not opened at once');
    const deadline = Date.now() + CONFIRM_TIMEOUT_MS + SLACK_MS;
    while (Date.now() < deadline) {
      assert.is(breaker.downSince, 0, 'never opened while queries succeed');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(answered > 0);
    await generation(sql);
  } finally {
    running = false;
    await traffic;
    await sql.end({ timeout: 1 });
  }
});

test('a connect timeout on a server that answers nothing opens the breaker once a probe confirms', async () => {
  const proxy = await startPgProxy(process.env.TEST_DB_URL!);
  const sql = createPool(proxy.url);
  const breaker = breakerOf(sql)!;
  try {
    await generation(sql);
    proxy.hang();
    const timedOut = Object.assign(new Error('write CONNECT_TIMEOUT'), { code: 'CONNECT_TIMEOUT' });
    await rejection(withDeadline(Promise.reject(timedOut), QUERY_TIMEOUT_MS, undefined, breaker));
    assert.ok(await until(() => breaker.downSince > 0, CONFIRM_TIMEOUT_MS + SLACK_MS), 'opened by the confirming probe');
    proxy.resume();
    assert.ok(await until(() => breaker.downSince === 0, 3000 + SLACK_MS), 'closed when the server answers');
  } finally {
    proxy.resume();
    await sql.end({ timeout: 1 });
    await proxy.stop();
  }
});

test.run();
