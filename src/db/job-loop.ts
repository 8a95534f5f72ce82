import { randomUUID } from 'node:crypto';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { wallClock, type Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import type { Sql } from './pool.js';

// A queue kept in a PostgreSQL table and worked by every process that runs this
// loop over it (the webhook deliveries, the package checks). A claim takes a few
// due rows with FOR UPDATE SKIP LOCKED and leases them under a claim id for one
// try each, so two processes never work the same row at once and the row of a
// process that died mid-job is claimed again when its lease ends; only the
// claimant may finish a row (the worker's queries check the claim id).
//
// The loop works a batch (at most `concurrency` jobs at once), goes on at once
// while batches come back full, then waits for the next poll (jittered, so
// processes spread out) or a wake-up: NOTIFY on `channel`, which the statement that
// queues a job sends and PostgreSQL delivers to every listening process when its
// transaction commits. While PostgreSQL cannot be reached the wait doubles up to
// MAX_RETRY_WAIT_MS: a down database gets a claim a few times a minute, not one a
// poll from every process. Nothing it starts is left to reject unhandled.

/** The longest wait between claims while PostgreSQL cannot be reached. */
export const MAX_RETRY_WAIT_MS = 30_000;

/** What a claim may take, and under which id and lease. */
export interface Lease {
  /** The claim id: only its holder may finish the rows it took. */
  claim: string;
  /** The claim's time (the loop's clock): rows due by then are taken. */
  now: Date;
  /** When the lease ends and another claim may take the rows again. */
  until: Date;
  /** At most this many rows. */
  limit: number;
}

/** Waits `ms`, or less when `signal` aborts (a wake-up or stop); never rejects. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export interface JobLoopOptions<Job> {
  sql: Sql;
  log: Logger;
  /** The queue's name in log lines ("webhook delivery"). */
  name: string;
  /** The NOTIFY channel that says a job was queued. */
  channel: string;
  pollMs: number;
  /** Jobs claimed at once, and so worked at once, by this process. */
  concurrency: number;
  /** Longer than any one job, so a live job never loses its lease. */
  leaseMs: number;
  /** Now, for the claim and the lease; wall time unless a test moves it. */
  clock?: Clock;
  /** Claims due jobs under `lease` (a named query); a throw means the queue cannot be read now. */
  claim(lease: Lease): Promise<Job[]>;
  /**
   * Works one claimed job and records its outcome under `lease.claim`; `signal`
   * aborts at stop. A throw is logged and the job keeps its lease, so it is claimed
   * again when the lease ends.
   */
  work(job: Job, lease: Lease, signal: AbortSignal): Promise<void>;
  /** Log fields naming a job. */
  describe(job: Job): Record<string, unknown>;
  /** How the loop waits between claims; a timer that keeps no process alive unless a test passes its own. */
  sleep?: Sleep;
}

export interface JobLoop {
  /** Starts claiming and listening; idempotent. */
  start(): Promise<void>;
  /** Claims one batch and works it; answers how many jobs were claimed (0 once stopped). */
  runOnce(): Promise<number>;
  /** Stops claiming, aborts the jobs under way (`work`'s signal), and waits for them and the loop. */
  stop(): Promise<void>;
}

/**
 * The wait before the next claim: the poll interval after a claim that worked,
 * doubling with each claim in a row that failed, at most MAX_RETRY_WAIT_MS (or the
 * poll interval, if longer); ±25 % (`random` in [0, 1)).
 */
export function nextWaitMs(pollMs: number, failures: number, random = Math.random()): number {
  const base = failures === 0 ? pollMs : Math.min(pollMs * 2 ** (failures - 1), Math.max(MAX_RETRY_WAIT_MS, pollMs));
  return base * (0.75 + random * 0.5);
}

const timerSleep: Sleep = (ms, signal) =>
  // ref: false: the wait alone never keeps a process alive (the server and the pool do).
  sleepFor(ms, undefined, { signal, ref: false }).catch(() => undefined);

export function createJobLoop<Job>(options: JobLoopOptions<Job>): JobLoop {
  const { log, name, concurrency } = options;
  const clock = options.clock ?? wallClock;
  const sleep = options.sleep ?? timerSleep;
  const stopping = new AbortController();
  const working = new Set<Promise<number>>();
  let loop: Promise<void> | undefined;
  let listening: { unlisten(): Promise<void> } | undefined;
  let listenStarted: Promise<void> | undefined;
  /** Ends the current wait; undefined between waits. */
  let waking: AbortController | undefined;
  /** A wake-up that came between waits: the next one does not wait. */
  let woken = false;
  let failures = 0;

  const claimAndWork = async (): Promise<number> => {
    const now = clock();
    const lease: Lease = { claim: randomUUID(), now: new Date(now), until: new Date(now + options.leaseMs), limit: concurrency };
    const jobs = await options.claim(lease);
    // When each claim began and what it took, at debug level: for an operator whose
    // queue seems stuck, and for a test of several processes that waits until each
    // has claimed again after a job was done (test/site/two-processes.test.ts).
    log.debug(`${name} claim`, { claimAt: lease.now.toISOString(), jobs: jobs.length });
    await Promise.all(
      jobs.map((job) =>
        options.work(job, lease, stopping.signal).catch((error: unknown) => {
          log.warn(`${name} could not be recorded; claimed again when its lease ends`, { ...options.describe(job), err: error });
        }),
      ),
    );
    return jobs.length;
  };

  const runOnce = (): Promise<number> => {
    if (stopping.signal.aborted) return Promise.resolve(0);
    const batch = claimAndWork();
    working.add(batch);
    const done = () => working.delete(batch);
    batch.then(done, done);
    return batch;
  };

  const wake = () => {
    if (waking) waking.abort();
    else woken = true;
  };

  const listen = async () => {
    try {
      const handle = await options.sql.listen(options.channel, wake);
      if (stopping.signal.aborted) await handle.unlisten().catch(() => undefined);
      else listening = handle;
    } catch (error) {
      // Polling alone still works the queue, a little later. postgres.js keeps the
      // listener of a LISTEN that failed and sends it again each time its LISTEN
      // connection comes back, so wake-ups resume with PostgreSQL (job-loop.test.ts).
      log.warn(`listening on ${options.channel} failed; polling only`, { err: error });
    }
  };

  const pause = async (ms: number) => {
    if (woken || stopping.signal.aborted) {
      woken = false;
      return;
    }
    waking = new AbortController();
    const onStop = () => waking?.abort();
    stopping.signal.addEventListener('abort', onStop);
    try {
      await sleep(ms, waking.signal);
    } finally {
      stopping.signal.removeEventListener('abort', onStop);
      waking = undefined;
    }
  };

  const run = async () => {
    while (!stopping.signal.aborted) {
      try {
        // A full batch suggests more is due: go on at once.
        while ((await runOnce()) === concurrency && !stopping.signal.aborted);
        if (failures > 0) log.info(`${name} queue reachable again`, { failedClaims: failures });
        failures = 0;
      } catch (error) {
        failures++;
        log.warn(`${name} queue unavailable`, { err: error, failedClaims: failures });
      }
      await pause(nextWaitMs(options.pollMs, failures));
    }
  };

  return {
    async start() {
      if (loop || stopping.signal.aborted) return;
      loop = run().catch((error: unknown) => log.error(`${name} loop ended`, { err: error }));
      listenStarted = listen();
      await listenStarted;
    },
    runOnce,
    async stop() {
      stopping.abort();
      await listenStarted;
      await listening?.unlisten().catch(() => undefined);
      await loop;
      await Promise.allSettled([...working]);
    },
  };
}
