// What the soak records as it runs: per row (a minute, or a tenth of a short run)
// the requests, the errors by kind and the latencies; RSS samples per process;
// every failure with its time (judged against the fault windows afterwards); the
// visitor reads answered before, and those that failed later; every upload
// answered 2xx, to be fetched again at the end.
import type { FaultKind } from './settings.js';
import type { Kind } from './mix.js';
import type { StoredFile } from './seed.js';

export interface Outcome {
  kind: Kind;
  /** Seconds after the load started. */
  start: number;
  end: number;
  /** null: it worked. Otherwise "503 UNAVAILABLE", "timeout", "connection: ECONNRESET", "check: ...". */
  error: string | null;
  visitorRead?: string;
  /** The site process that answered (the proxy's X-Soak-Upstream); none when no answer came. */
  upstream?: string;
}

export interface Failure {
  kind: Kind;
  start: number;
  end: number;
  error: string;
}

export interface FaultWindow {
  kind: FaultKind;
  /** Seconds after the load started: the fault began, and the service answered again. */
  start: number;
  end: number;
  /** What it did, for the report: "SIGKILL imghost-2 (pid 123), started again". */
  what: string;
}

export interface Row {
  requests: number;
  errors: Record<string, number>;
  latencies: number[];
}

/** `seconds`: the load's length; what starts after it (a follow-up of the last uploads) goes in the last row. */
export function createRecorder(bucketSeconds: number, seconds: number) {
  const lastRow = Math.max(0, Math.ceil(seconds / bucketSeconds) - 1);
  const rows: Row[] = [];
  const failures: Failure[] = [];
  /** A visitor read's key -> when it was first answered, by any process and by each. */
  const seen = new Map<string, number>();
  const seenBy = new Map<string, number>();
  /**
   * Failures of visitor reads answered before: when first answered by any process,
   * and by the process that failed now (when it answered at all; else by any).
   */
  const visitorFailures: Array<Failure & { key: string; firstSeen: number; firstSeenHere: number | undefined }> = [];
  const rss: Array<{ t: number; values: Record<string, number> }> = [];
  const uploads: StoredFile[] = [];
  const perKind = new Map<string, { requests: number; errors: Record<string, number> }>();

  const rowAt = (at: number) => {
    const index = Math.min(lastRow, Math.max(0, Math.floor(at / bucketSeconds)));
    while (rows.length <= index) rows.push({ requests: 0, errors: {}, latencies: [] });
    return rows[index]!;
  };

  return {
    rows,
    failures,
    visitorFailures,
    rss,
    uploads,
    perKind,
    record(outcome: Outcome): void {
      const row = rowAt(outcome.start);
      row.requests++;
      row.latencies.push((outcome.end - outcome.start) * 1000);
      const tally = perKind.get(outcome.kind) ?? { requests: 0, errors: {} };
      perKind.set(outcome.kind, tally);
      tally.requests++;
      if (outcome.error === null) {
        if (outcome.visitorRead !== undefined) {
          if (!seen.has(outcome.visitorRead)) seen.set(outcome.visitorRead, outcome.end);
          const here = `${outcome.upstream} ${outcome.visitorRead}`;
          if (!seenBy.has(here)) seenBy.set(here, outcome.end);
        }
        return;
      }
      row.errors[outcome.error] = (row.errors[outcome.error] ?? 0) + 1;
      tally.errors[outcome.error] = (tally.errors[outcome.error] ?? 0) + 1;
      const failure = { kind: outcome.kind, start: outcome.start, end: outcome.end, error: outcome.error };
      failures.push(failure);
      const firstSeen = outcome.visitorRead === undefined ? undefined : seen.get(outcome.visitorRead);
      if (firstSeen !== undefined) {
        const firstSeenHere = outcome.upstream === undefined ? firstSeen : seenBy.get(`${outcome.upstream} ${outcome.visitorRead}`);
        visitorFailures.push({ ...failure, key: outcome.visitorRead!, firstSeen, firstSeenHere });
      }
    },
    sampleRss(t: number, values: Record<string, number>): void {
      rss.push({ t, values });
    },
    stored(file: StoredFile): void {
      uploads.push(file);
    },
  };
}

export type Recorder = ReturnType<typeof createRecorder>;

export function p99(latencies: number[]): number {
  if (latencies.length === 0) return 0;
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
}
