// A connection whose query was cut off by "terminating connection" (57P01) must not
// hand that notice to a query asked after it connects again (src/db/queries.ts,
// leftOverNotice).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { createPool, POOL_SIZE } from '../../src/db/pool.js';
import { breakerOf } from '../../src/db/breaker.js';
import { inTransaction, runNamed } from '../../src/db/queries.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A pool one of whose connections had its query ended by pg_terminate_backend (as a fast shutdown ends it). */
async function poolWithCutOffQuery(name: string) {
  const admin = postgres(process.env.TEST_DB_URL!, { max: 1, onnotice: () => {} });
  const sql = createPool(process.env.TEST_DB_URL!);
  const cutOff = sql.unsafe(`select pg_sleep(30) /* ${name} */`).then(() => 'answered', (error: { code?: string }) => error.code ?? 'error');
  let pid: number | undefined;
  for (let i = 0; i < 100 && pid === undefined; i++) {
    await sleep(50);
    pid = (await admin.unsafe(`select pid from pg_stat_activity where query like $1 and pid <> pg_backend_pid()`, [`%pg_sleep(30) /* ${name} */%`]))[0]?.pid;
  }
  assert.ok(pid, 'the sleeping query was seen');
  await admin`select pg_terminate_backend(${pid!})`;
  assert.is.not(await cutOff, 'answered');
  // The breaker opened on the lost connection; it closes as soon as a probe gets through.
  for (let i = 0; i < 100 && breakerOf(sql)!.downSince !== 0; i++) await sleep(20);
  assert.is(breakerOf(sql)!.downSince, 0, 'the breaker closed again');
  await admin.end();
  return sql;
}

// Defect: postgres.js keeps the 57P01 of the query cut off and fails, with it, the
// first query its connection serves after connecting again: in a 30-minute soak a
// plugin detail answered 503 31 s after PostgreSQL came back, and the breaker opened
// on a healthy server.
test('a shutdown notice left from before a reconnect fails no query later', async () => {
  const sql = await poolWithCutOffQuery('queries');
  try {
    // Enough at once that every connection of the pool is used, the cut-off one too.
    const answers = await Promise.allSettled(Array.from({ length: POOL_SIZE * 2 }, () => runNamed(sql, 'site/generations', {})));
    const failed = answers.filter((a) => a.status === 'rejected').map((a) => String((a as PromiseRejectedResult).reason?.code ?? (a as PromiseRejectedResult).reason));
    assert.equal(failed, [], 'every query answered');
    assert.is(breakerOf(sql)!.downSince, 0, 'the breaker stayed closed');
  } finally {
    await sql.end({ timeout: 1 });
  }
});

test('a shutdown notice left from before a reconnect fails no transaction later', async () => {
  const sql = await poolWithCutOffQuery('transactions');
  try {
    const answers = await Promise.allSettled(Array.from({ length: POOL_SIZE * 2 }, () => inTransaction(sql, (tx) => runNamed(tx, 'site/generations', {}))));
    const failed = answers.filter((a) => a.status === 'rejected').map((a) => String((a as PromiseRejectedResult).reason?.code ?? (a as PromiseRejectedResult).reason));
    assert.equal(failed, [], 'every transaction answered');
  } finally {
    await sql.end({ timeout: 1 });
  }
});

test.run();
