// The job loop of the queues kept in PostgreSQL (src/db/job-loop.ts), over a table
// of its own: leases shared by two pools (as two processes), a dead claimant's job
// claimed again on a moved clock, bounded batches, a wake-up by NOTIFY on commit,
// a clean stop, and PostgreSQL cut away under it: the waits between claims double,
// nothing rejects unhandled, and it works the queue again once PostgreSQL is back.
// The loop's waits are the test's (a stepped sleep), so nothing here sleeps for timing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createJobLoop, MAX_RETRY_WAIT_MS, nextWaitMs, type JobLoop, type JobLoopOptions, type Lease, type Sleep } from '../../src/db/job-loop.js';
import { createPool, type Sql } from '../../src/db/pool.js';
import { startPgProxy } from '../helpers/pg-proxy.js';
import { closeTestSql, testLogger, testSql } from '../helpers/servers.js';
import { manualClock, waitFor } from '../helpers/time.js';

const CHANNEL = 'test_jobs';
const extraPools: Sql[] = [];
const loops: JobLoop[] = [];

interface Job {
  id: number;
}

test.before(async () => {
  await testSql()`
    create table test_jobs (
      id int primary key,
      due_at timestamptz not null default now(),
      locked_until timestamptz,
      claim uuid,
      attempts int not null default 0,
      done_by text
    )`;
});
test.before.each(async () => {
  await testSql()`delete from test_jobs`;
});
test.after(async () => {
  for (const loop of loops) await loop.stop();
  for (const pool of extraPools) await pool.end({ timeout: 2 });
  await closeTestSql();
});

/** The claim of the real queues (webhooks/claim.sql), on test_jobs. */
const claimOn = (sql: Sql) => (lease: Lease) =>
  sql<Job[]>`
    with due as (
      select id from test_jobs
       where done_by is null and due_at <= ${lease.now} and (locked_until is null or locked_until <= ${lease.now})
       order by id limit ${lease.limit} for update skip locked
    )
    update test_jobs j set locked_until = ${lease.until}, claim = ${lease.claim}, attempts = j.attempts + 1
      from due where j.id = due.id
    returning j.id`.then((rows) => [...rows]);

/** Finishes a job under its claim, as the workers' queries do. */
const finishOn = (sql: Sql, by: string) => async (job: Job, lease: Lease) => {
  await sql`update test_jobs set done_by = ${by}, locked_until = null where id = ${job.id} and claim = ${lease.claim}`;
};

function loopOf(options: Partial<JobLoopOptions<Job>> & { sql?: Sql } = {}): JobLoop {
  const sql = options.sql ?? testSql();
  const loop = createJobLoop<Job>({
    sql,
    log: testLogger(),
    name: 'test job',
    channel: CHANNEL,
    pollMs: 60_000,
    concurrency: 3,
    leaseMs: 60_000,
    claim: claimOn(sql),
    work: finishOn(sql, 'loop'),
    describe: (job) => ({ job: job.id }),
    ...options,
  });
  loops.push(loop);
  return loop;
}

async function queue(ids: number[]): Promise<void> {
  await testSql().begin(async (t) => {
    for (const id of ids) await t`insert into test_jobs (id) values (${id})`;
    await t`select pg_notify(${CHANNEL}, '')`;
  });
}

const jobs = async () => [...(await testSql()<Array<{ id: number; attempts: number; done_by: string | null }>>`select id, attempts, done_by from test_jobs order by id`)];

/** A sleep the test ends: each wait is recorded and lasts until `release()`, a wake-up or stop. */
function steppedSleep() {
  const waits: number[] = [];
  let release = () => {};
  const sleep: Sleep = (ms, signal) =>
    new Promise<void>((resolve) => {
      waits.push(ms);
      release = resolve;
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  return {
    waits,
    sleep,
    /** Ends the current wait and answers the next one's length. */
    async step(): Promise<number> {
      const seen = waits.length;
      release();
      await waitFor(`wait ${seen + 1}`, () => waits.length > seen);
      return waits[seen]!;
    },
  };
}

test('the wait before the next claim: the poll interval after a claim that worked, doubling with each failed one, at most 30 s; ±25 %', () => {
  const cases = [
    { what: 'a claim that worked', pollMs: 1500, failures: 0, expected: 1500 },
    { what: 'one failed claim', pollMs: 1500, failures: 1, expected: 1500 },
    { what: 'two', pollMs: 1500, failures: 2, expected: 3000 },
    { what: 'five', pollMs: 1500, failures: 5, expected: 24_000 },
    { what: 'six: at the cap', pollMs: 1500, failures: 6, expected: MAX_RETRY_WAIT_MS },
    { what: 'thousands: still the cap', pollMs: 1500, failures: 5000, expected: MAX_RETRY_WAIT_MS },
    { what: 'a poll longer than the cap', pollMs: 60_000, failures: 3, expected: 60_000 },
  ];
  for (const c of cases) {
    assert.is(nextWaitMs(c.pollMs, c.failures, 0.5), c.expected, c.what);
    assert.is(nextWaitMs(c.pollMs, c.failures, 0), c.expected * 0.75, `${c.what}, earliest`);
    assert.ok(nextWaitMs(c.pollMs, c.failures, 0.999_999) < c.expected * 1.25, `${c.what}, latest`);
  }
});

test('two loops on their own pools (as two processes) work each of 30 jobs exactly once, at most 3 at once each', async () => {
  await queue(Array.from({ length: 30 }, (_, i) => i + 1));
  const running = [0, 0];
  const most = [0, 0];
  const pair = [0, 1].map((i) => {
    const pool = createPool(process.env.TEST_DB_URL!);
    extraPools.push(pool);
    const finish = finishOn(pool, `loop-${i}`);
    return loopOf({
      sql: pool,
      work: async (job, lease) => {
        most[i] = Math.max(most[i]!, ++running[i]!);
        // Both batches overlap in time, so SKIP LOCKED is what keeps them apart.
        await new Promise((resolve) => setImmediate(resolve));
        await finish(job, lease);
        running[i]!--;
      },
    });
  });
  const claimed = [0, 0];
  for (let round = 0; round < 20; round++) {
    const counts = await Promise.all(pair.map((loop) => loop.runOnce()));
    counts.forEach((count, i) => (claimed[i]! += count));
    if (counts.every((count) => count === 0)) break;
  }
  assert.is(claimed[0]! + claimed[1]!, 30);
  assert.ok(claimed[0]! > 0 && claimed[1]! > 0, `both took some: ${claimed}`);
  assert.ok(most.every((n) => n <= 3), `at most 3 at once: ${most}`);
  const rows = await jobs();
  assert.ok(rows.every((row) => row.attempts === 1 && row.done_by !== null), JSON.stringify(rows.filter((row) => row.attempts !== 1)));
});

test('a job whose worker threw keeps its lease (logged, not unhandled) and is claimed again when the lease ends, on a moved clock', async () => {
  await queue([1]);
  const clock = manualClock();
  let throwing = true;
  const finish = finishOn(testSql(), 'loop');
  const loop = loopOf({
    clock: clock.now,
    work: async (job, lease) => {
      if (throwing) throw new Error('the process died mid-job');
      await finish(job, lease);
    },
  });
  assert.is(await loop.runOnce(), 1);
  assert.is(await loop.runOnce(), 0, 'leased');
  clock.advance(59_000);
  assert.is(await loop.runOnce(), 0, 'still leased');
  throwing = false;
  clock.advance(2_000);
  assert.is(await loop.runOnce(), 1, 'the lease ended');
  assert.equal(await jobs(), [{ id: 1, attempts: 2, done_by: 'loop' }]);
});

test('a full batch goes on at once: 10 jobs, 3 at a time, all worked before the first wait', async () => {
  const stepped = steppedSleep();
  const loop = loopOf({ sleep: stepped.sleep });
  await queue(Array.from({ length: 10 }, (_, i) => 100 + i));
  await loop.start();
  await waitFor('the first wait', () => stepped.waits.length === 1);
  assert.ok((await jobs()).every((row) => row.done_by === 'loop' && row.attempts === 1));
  assert.ok(stepped.waits[0]! >= 45_000 && stepped.waits[0]! < 75_000, `a poll (60 s ±25 %), not a retry: ${stepped.waits[0]}`);
  await loop.stop();
});

test('a running loop whose next poll is a minute away is woken by NOTIFY when a transaction that queued a job commits', async () => {
  const stepped = steppedSleep();
  const loop = loopOf({ sleep: stepped.sleep });
  await loop.start();
  await waitFor('the first wait', () => stepped.waits.length === 1);
  await queue([200]);
  // Only the NOTIFY can end this wait: the test never releases it.
  await waitFor('the job worked', async () => (await jobs())[0]?.done_by === 'loop');
  assert.is(stepped.waits.length, 2);
  await loop.stop();
});

test('stop aborts the jobs under way and waits for them to end; a claim after stop takes nothing', async () => {
  let aborted = 0;
  let ended = 0;
  let started = () => {};
  const working = new Promise<void>((resolve) => (started = resolve));
  const loop = loopOf({
    work: (_job, _lease, signal) =>
      new Promise<void>((resolve) => {
        started();
        signal.addEventListener('abort', () => {
          aborted++;
          // Recording the interrupted job takes a moment of its own.
          setImmediate(() => {
            ended++;
            resolve();
          });
        });
      }),
  });
  await queue([300, 301]);
  const batch = loop.runOnce();
  await working;
  await loop.stop();
  assert.equal([aborted, ended], [2, 2], 'both jobs saw the abort and ended before stop answered');
  assert.is(await batch, 2);
  await testSql()`update test_jobs set locked_until = null`;
  assert.is(await loop.runOnce(), 0);
  assert.ok((await jobs()).every((row) => row.attempts === 1), 'not claimed after stop');
});

test('PostgreSQL unreachable: the waits between claims double up to 30 s, nothing rejects unhandled, and once it is back the loop works the queue and listens again', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  const proxy = await startPgProxy(process.env.TEST_DB_URL!);
  const pool = createPool(proxy.url);
  extraPools.push(pool);
  const stepped = steppedSleep();
  const loop = loopOf({ sql: pool, pollMs: 1000, sleep: stepped.sleep });
  try {
    await proxy.stop();
    await loop.start();
    await waitFor('the first wait', () => stepped.waits.length === 1);
    const waits = [stepped.waits[0]!];
    for (let i = 0; i < 6; i++) waits.push(await stepped.step());
    const expected = [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000];
    waits.forEach((wait, i) => assert.ok(wait >= expected[i]! * 0.75 && wait < expected[i]! * 1.25, `wait ${i + 1}: ${wait}, about ${expected[i]}`));

    await proxy.start();
    await queue([400]);
    // The pool's breaker lets queries through again once its probe answers.
    for (let i = 0; i < 100 && (await jobs())[0]?.done_by !== 'loop'; i++) await stepped.step();
    assert.is((await jobs())[0]?.done_by, 'loop', 'worked once PostgreSQL is back');
    const after = stepped.waits.at(-1)!;
    assert.ok(after >= 750 && after < 1250, `back to the poll interval: ${after}`);

    // Listening, which failed at start, is taken up again: a NOTIFY ends the wait
    // (the test never releases it).
    const waited = stepped.waits.length;
    await waitFor('woken by NOTIFY', async () => {
      await queue([]);
      return stepped.waits.length > waited;
    });
    assert.equal(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
    await loop.stop();
    await proxy.stop();
  }
});

test.run();
