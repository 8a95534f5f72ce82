// The soak's pass conditions (docs/soak.md), each PASS or FAIL with the figures
// behind it:
// 1. RSS flat: per process, the mean of the last ten minutes within 10% of the mean
//    of minutes five to ten (scaled for shorter runs). A process a fault restarts
//    starts small again, so for it only growth beyond 10% fails, and it is said.
//    The soak's proxies and s3rver are drawn but not judged: they stand in for
//    nginx and S3.
// 2. No request outside a fault window fails (a window runs from the fault to the
//    service answering again, plus the grace).
// 3. No visitor read answered before a PostgreSQL outage fails during it: judged
//    per site process (a process serves the answers it holds, RFC 5861's
//    stale-if-error), so a read counts when the process that failed had answered
//    it before; the reads any process had answered are counted beside it.
// 4. No upload answered 2xx is lost: every one is fetched again at the end from
//    each image host and hashed.
import type { Failure, FaultWindow, Recorder } from './record.js';
import type { SoakSettings } from './settings.js';

export interface Condition {
  name: string;
  pass: boolean;
  detail: string;
}

const MiB = 1024 * 1024;
const EXAMPLES = 5;

function mean(values: number[]): number {
  return values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

function overlaps(failure: Failure, windows: FaultWindow[], grace: number): boolean {
  return windows.some((w) => failure.end >= w.start && failure.start <= w.end + grace);
}

function describe(failures: Failure[]): string {
  return failures.slice(0, EXAMPLES).map((f) => `${f.kind} at ${f.start.toFixed(1)}-${f.end.toFixed(1)} s: ${f.error}`).join('; ');
}

export function judge(
  settings: SoakSettings,
  recorder: Recorder,
  windows: FaultWindow[],
  judged: { roles: string[]; restarted: Set<string> },
  refetch: { checked: number; lost: string[] },
): Condition[] {
  const conditions: Condition[] = [];
  const { roles, restarted } = judged;
  const within = ([from, to]: [number, number], role: string) =>
    recorder.rss.filter((s) => s.t >= from && s.t < to && (s.values[role] ?? 0) > 0).map((s) => s.values[role]!);
  for (const role of roles) {
    const base = mean(within(settings.baseline, role));
    const last = mean(within(settings.last, role));
    const ratio = last / base;
    const growthOnly = restarted.has(role);
    const pass = Number.isFinite(ratio) && (growthOnly ? ratio <= 1.1 : Math.abs(ratio - 1) <= 0.1);
    conditions.push({
      name: `RSS flat: ${role}`,
      pass,
      detail: `mean ${(last / MiB).toFixed(1)} MiB over ${settings.last[0].toFixed(0)}-${settings.last[1].toFixed(0)} s vs ${(base / MiB).toFixed(1)} MiB over ` +
        `${settings.baseline[0].toFixed(0)}-${settings.baseline[1].toFixed(0)} s (${((ratio - 1) * 100).toFixed(1)}%` +
        `${growthOnly ? '; restarted by a fault: only growth beyond 10% fails' : ''})`,
    });
  }

  const outside = recorder.failures.filter((failure) => !overlaps(failure, windows, settings.graceSeconds));
  conditions.push({
    name: 'no request outside a fault window fails',
    pass: outside.length === 0,
    detail: `${outside.length} of ${recorder.failures.length} failures outside the windows (grace ${settings.graceSeconds} s)` +
      (outside.length ? `: ${describe(outside)}` : ''),
  });

  const postgres = windows.filter((w) => w.kind === 'postgres');
  const during = (f: Failure, seenAt: number | undefined) =>
    seenAt !== undefined && postgres.some((w) => seenAt < w.start && f.end >= w.start && f.start <= w.end + settings.graceSeconds);
  const failedHere = recorder.visitorFailures.filter((f) => during(f, f.firstSeenHere));
  const failedAny = recorder.visitorFailures.filter((f) => during(f, f.firstSeen));
  conditions.push({
    name: 'no visitor read answered before a PostgreSQL outage fails during it',
    // Any process: the proxy asks the other site when one answers 503 (proxy.ts), as a deployment's should (docs/operations.md).
    pass: postgres.length > 0 && failedAny.length === 0,
    detail: postgres.length === 0
      ? 'no PostgreSQL outage ran'
      : `${failedAny.length} reads some site process had answered before failed during ${postgres.length} outage(s)` +
        `${failedAny.length ? `: ${describe(failedAny)}` : ''}; ${failedHere.length} of them had been answered by the process that failed`,
  });

  conditions.push({
    name: 'no upload answered 2xx is lost',
    pass: refetch.lost.length === 0 && refetch.checked > 0,
    detail: `${refetch.checked} stored files fetched again from each image host, ${refetch.lost.length} missing or other bytes` +
      (refetch.lost.length ? `: ${refetch.lost.slice(0, EXAMPLES).join('; ')}` : ''),
  });
  return conditions;
}
