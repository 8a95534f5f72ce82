import type { Logger } from '../../../../lib/log.js';
import type { Sql } from '../../../../db/pool.js';
import { inTransaction, runNamed } from '../../../../db/queries.js';

// The watch: every approved plugin's live outside link is checked again once per
// EXTERNAL_RECHECK_HOURS, spread over the period (each run arms its share, oldest
// check first: schedule.sql), by one process at a time (a transaction-level
// advisory lock; the others skip their run). The checks themselves are run by
// every process's worker (check-worker.ts).

/** How often each process tries to take its turn. */
export const SCHEDULE_INTERVAL_MS = 60_000;

export interface RecheckSchedule {
  /** One run: answers the plugins whose checks it armed (none when another process had the turn). */
  runOnce(): Promise<string[]>;
  stop(): void;
}

export function startRecheckSchedule(deps: { sql: Sql; log: Logger }, periodMs: number, intervalMs = SCHEDULE_INTERVAL_MS, start = true): RecheckSchedule {
  const log = deps.log.child({ feature: 'package-checks' });
  const runOnce = () =>
    inTransaction(deps.sql, async (t) => {
      const [turn] = await runNamed(t, 'store/package-checks/schedule-lock', {});
      if (!turn?.taken) return [];
      const armed = await runNamed(t, 'store/package-checks/schedule', { period_ms: periodMs, interval_ms: intervalMs });
      return armed.map((row) => row.plugin_id);
    });
  const timer = start
    ? setInterval(() => {
        runOnce().then(
          (armed) => {
            if (armed.length > 0) log.info('outside links due for their scheduled check', { armed: armed.length });
          },
          (error: unknown) => log.warn('arming scheduled package checks failed', { err: error }),
        );
      }, intervalMs)
    : undefined;
  timer?.unref();
  return { runOnce, stop: () => clearInterval(timer) };
}
