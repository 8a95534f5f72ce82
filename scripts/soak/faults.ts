// The soak's faults, run on the schedule of settings.ts while the load runs:
// PostgreSQL stopped (fast shutdown) and started again on the same port and data;
// one image host killed with SIGKILL and started again at once; the bucket's
// server killed and started again on the same port and folder after 30 s. Each
// leaves a window from the fault to the moment the service answers again.
import type { Service } from './services.js';
import type { FaultWindow } from './record.js';
import type { PlannedFault } from './settings.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface FaultTargets {
  postgres: Service;
  /** The image host that is killed (always the same one: the other's RSS stays comparable). */
  imghost: Service;
  bucket: Service | null;
}

export function runFaults(planned: PlannedFault[], targets: FaultTargets, now: () => number, say: (line: string) => void) {
  const windows: FaultWindow[] = [];
  const errors: string[] = [];
  let stopped = false;

  async function one(fault: PlannedFault): Promise<string> {
    let what: string;
    if (fault.kind === 'postgres') {
      const pid = targets.postgres.pid();
      await targets.postgres.stop();
      await sleep(fault.downSeconds * 1000);
      await targets.postgres.start();
      what = `PostgreSQL (pid ${pid}) stopped for ${fault.downSeconds} s, started again on the same port and data`;
    } else if (fault.kind === 'imghost') {
      const pid = targets.imghost.pid();
      await targets.imghost.stop(true);
      await targets.imghost.start();
      what = `SIGKILL ${targets.imghost.name} (pid ${pid}), started again`;
    } else {
      const bucket = targets.bucket!;
      const pid = bucket.pid();
      await bucket.stop(true);
      await sleep(fault.downSeconds * 1000);
      await bucket.start();
      what = `bucket server (pid ${pid}) killed for ${fault.downSeconds} s, started again on the same port and folder`;
    }
    return what;
  }

  const done = (async () => {
    for (const fault of planned) {
      if (fault.kind === 'bucket' && targets.bucket === null) continue;
      while (!stopped && now() < fault.at) await sleep(Math.min(500, (fault.at - now()) * 1000));
      if (stopped) return;
      const start = now();
      let what: string;
      try {
        what = await one(fault);
      } catch (error) {
        what = `${fault.kind} fault FAILED: ${error instanceof Error ? error.message : String(error)}`;
        errors.push(what);
      }
      windows.push({ kind: fault.kind, start, end: now(), what });
      say(`fault at ${start.toFixed(0)} s, back at ${now().toFixed(0)} s: ${what}`);
    }
  })();

  return {
    windows,
    errors,
    /** Waits for a fault under way to end; the later ones are not started. */
    async finish(): Promise<void> {
      stopped = true;
      await done;
    },
  };
}
