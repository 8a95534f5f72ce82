// The soak's settings (SOAK_* in the environment) and its fault schedule, both
// scaled to the run's length so that a 3-minute try and the 30-minute run check
// the same things (docs/soak.md).
import { resolve } from 'node:path';
import { projectRoot } from '../../src/lib/project-root.js';

export type FaultKind = 'postgres' | 'imghost' | 'bucket';

export interface PlannedFault {
  kind: FaultKind;
  /** Seconds after the load started. */
  at: number;
  /** How long the service stays down (the image host is started again at once). */
  downSeconds: number;
}

export interface SoakSettings {
  rate: number;
  seconds: number;
  out: string;
  /** After a fault ends, failures are still the fault's for this long. */
  graceSeconds: number;
  timeoutMs: number;
  plugins: number;
  /** Seconds per row of the record: 60 from 10 minutes up, a tenth of the run below. */
  bucketSeconds: number;
  rssSampleSeconds: number;
  /** The RSS windows, seconds after the load started: minutes 5-10 and the last ten of 30, scaled. */
  baseline: [number, number];
  last: [number, number];
  faults: PlannedFault[];
  /** What was scaled down for a short run, said in the output. */
  scaled: string[];
}

const FULL_SECONDS = 30 * 60;
const FAULT_KINDS: FaultKind[] = ['postgres', 'imghost', 'bucket'];

function number(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < min || value > max) throw new Error(`${name} must be a number from ${min} to ${max} (got "${text}")`);
  return value;
}

export function readSoakSettings(env: NodeJS.ProcessEnv = process.env): SoakSettings {
  const rate = number(env, 'SOAK_RATE', 100, 1, 5000);
  const seconds = Math.round(number(env, 'SOAK_MINUTES', 30, 0.25, 24 * 60) * 60);
  const scale = Math.min(1, seconds / FULL_SECONDS);
  const scaled: string[] = [];
  const scaledValue = (name: string, fallback: number, min: number) => {
    if (env[name] !== undefined && env[name] !== '') return number(env, name, fallback, 0, 3600);
    const value = Math.max(min, Math.round(fallback * scale * 10) / 10);
    if (value < fallback) scaled.push(`${name} ${fallback} -> ${value}`);
    return value;
  };
  const graceSeconds = scaledValue('SOAK_GRACE_SECONDS', 10, 2);
  const pgDown = scaledValue('SOAK_PG_DOWN_SECONDS', 10, 2);
  const bucketDown = scaledValue('SOAK_BUCKET_DOWN_SECONDS', 30, 3);
  const rounds = number(env, 'SOAK_FAULT_ROUNDS', seconds >= 10 * 60 ? 2 : 1, 0, 20);
  const bucketSeconds = seconds >= 600 ? 60 : Math.max(2, Math.round(seconds / 10));
  if (bucketSeconds !== 60) scaled.push(`record rows of ${bucketSeconds} s instead of a minute`);
  if (scale < 1) scaled.push(`RSS windows ${fmt(seconds / 6)}-${fmt(seconds / 3)} s and ${fmt((seconds * 2) / 3)}-${fmt(seconds)} s (minutes 5-10 and 20-30 of 30)`);
  // Faults after the RSS baseline window, spread evenly up to 90% of the run.
  const kinds = FAULT_KINDS.filter((kind) => (env.SOAK_FAULTS ?? FAULT_KINDS.join(',')).split(',').includes(kind));
  const count = rounds * kinds.length;
  const from = seconds / 3;
  const to = seconds * 0.9;
  const faults: PlannedFault[] = [];
  for (let i = 0; i < count; i++) {
    const kind = kinds[i % kinds.length]!;
    faults.push({
      kind,
      at: Math.round(from + ((to - from) * (i + 0.5)) / count),
      downSeconds: kind === 'postgres' ? pgDown : kind === 'bucket' ? bucketDown : 0,
    });
  }
  return {
    rate,
    seconds,
    out: resolve(projectRoot(), env.SOAK_OUT ?? 'docs/soak'),
    graceSeconds,
    timeoutMs: number(env, 'SOAK_TIMEOUT_MS', 10_000, 100, 120_000),
    plugins: number(env, 'SOAK_PLUGINS', 2000, 50, 100_000),
    bucketSeconds,
    rssSampleSeconds: Math.min(5, Math.max(1, bucketSeconds / 4)),
    baseline: [seconds / 6, seconds / 3],
    last: [(seconds * 2) / 3, seconds],
    faults,
    scaled,
  };
}

const fmt = (value: number) => String(Math.round(value));
