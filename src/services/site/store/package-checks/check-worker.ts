import type { Dispatcher } from 'undici';
import { wallClock, type Clock } from '../../../../lib/clock.js';
import type { Logger } from '../../../../lib/log.js';
import { createJobLoop, type Lease } from '../../../../db/job-loop.js';
import type { Sql } from '../../../../db/pool.js';
import { inTransaction, runNamed } from '../../../../db/queries.js';
import type { StorePackageChecksClaimRow as Claimed, StorePackageChecksLockClaimedRow as LockedRow } from '../../../../db/query-rows.js';
import { recordAudit } from '../../audit-log.js';
import { CheckInterrupted, fetchPackage, type FetchLimits, type FetchOutcome } from './fetch-package.js';
import type { ImageHostClient } from '../../image-host/client.js';
import { applyPackageRules, type RulesVerdict } from './package-rules.js';

// The package checks' worker; one runs in every site process, and they share the
// jobs (plugin_package_checks, sql/007) through the job loop (db/job-loop.ts): a
// claim leases a few due rows, so no two processes fetch one link at once, and a
// row whose process died mid-check is claimed again when its lease ends. A result
// is saved only by its claimant, and only while the row still checks the same
// download. The loop is woken by NOTIFY package_checks, sent when a transaction
// that queued a check commits. A check under way when its process stops is
// stopped with it (fetch-package.ts) and put back in the queue, due at once, so
// another process does it; the link's last result stays as it was.

export const PACKAGE_CHECK_CHANNEL = 'package_checks';
export const POLL_INTERVAL_MS = 5_000;
/** Checks run at once by one process: each may stream up to PACKAGE_MAX_BYTES. */
export const CHECK_CONCURRENCY = 2;
/** When the image host could not inspect, the check is tried again after this. */
export const RETRY_AFTER_MS = 5 * 60_000;
/** The actor of the audit entries the watch writes (no user acted). */
const WATCH_ACTOR = { id: '0', username: 'package-check', avatar: '', admin: true };

export type CheckStatus = 'pending' | 'ok' | 'unreachable' | 'refused' | 'mismatch' | 'changed';

export interface CheckWorkerOptions {
  /** Now, in milliseconds; wall time unless a test moves time itself. */
  clock?: Clock;
  pollIntervalMs?: number;
  concurrency?: number;
  /** Longer than a whole check (the fetch's time limit), so a live check never loses its lease. */
  leaseMs?: number;
}

export interface CheckWorker {
  start(): Promise<void>;
  /** Claims one batch of due checks and runs them; answers how many were claimed. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export interface CheckWorkerDeps {
  sql: Sql;
  log: Logger;
  dispatcher: Dispatcher;
  inspector: ImageHostClient;
  limits: FetchLimits;
}

export function createCheckWorker(deps: CheckWorkerDeps, options: CheckWorkerOptions = {}): CheckWorker {
  const log = deps.log.child({ feature: 'package-checks' });
  const clock = options.clock ?? wallClock;

  /** Saves a finished fetch's result, if the claim still holds the download it fetched; tells of a change. */
  const record = (row: Claimed, claim: string, outcome: FetchOutcome) =>
    inTransaction(deps.sql, async (t) => {
      const [locked] = await runNamed(t, 'store/package-checks/lock-claimed', { plugin_id: row.plugin_id, claim, download: row.download });
      if (!locked) return;
      const rules = outcome.kind === 'fetched' ? await applyPackageRules(t, { id: row.plugin_id, submitterId: locked.submitter_id }, outcome.report) : null;
      const result = decide(outcome, rules, locked);
      await runNamed(t, 'store/package-checks/save-result', {
        plugin_id: row.plugin_id,
        status: result.status,
        sha256: result.sha256,
        size: result.size,
        entry_count: result.entryCount,
        manifest_json: result.manifest === null ? null : JSON.stringify(result.manifest),
        checks_json: result.checks === null ? null : JSON.stringify(result.checks),
        reason: result.reason,
      });
      log.info('package checked', { plugin: row.plugin_id, status: result.status, reason: result.reason ?? undefined });
      if (result.status === 'changed' && locked.status !== 'changed') await tellOfChange(t, locked, result.sha256!);
    });

  const check = async (row: Claimed, { claim }: Lease, stop: AbortSignal) => {
    try {
      await record(row, claim, await fetchPackage(deps.dispatcher, deps.inspector, row.download, deps.limits, stop));
    } catch (error) {
      if (error instanceof CheckInterrupted) {
        log.info('package check stopped with the process; back in the queue', { plugin: row.plugin_id });
        await runNamed(deps.sql, 'store/package-checks/retry-later', { plugin_id: row.plugin_id, claim, due_at: new Date(clock()) });
        return;
      }
      // Ours, not the link's (the image host down, busy or answering nonsense): the
      // link keeps its last result and is checked again later.
      log.warn('package check could not finish; tried again later', { plugin: row.plugin_id, err: error });
      await runNamed(deps.sql, 'store/package-checks/retry-later', { plugin_id: row.plugin_id, claim, due_at: new Date(clock() + RETRY_AFTER_MS) });
    }
  };

  const loop = createJobLoop<Claimed>({
    sql: deps.sql,
    log,
    name: 'package check',
    channel: PACKAGE_CHECK_CHANNEL,
    pollMs: options.pollIntervalMs ?? POLL_INTERVAL_MS,
    concurrency: options.concurrency ?? CHECK_CONCURRENCY,
    leaseMs: options.leaseMs ?? deps.limits.timeoutMs + 60_000,
    clock,
    claim: (lease) => runNamed(deps.sql, 'store/package-checks/claim', { now: lease.now, lease_until: lease.until, batch: lease.limit, claim: lease.claim }),
    work: check,
    describe: (row) => ({ plugin: row.plugin_id }),
  });
  return { start: loop.start, runOnce: loop.runOnce, stop: loop.stop };
}

interface Decided {
  status: CheckStatus;
  sha256: string | null;
  size: number | null;
  entryCount: number | null;
  manifest: Record<string, unknown> | null;
  checks: Array<Record<string, unknown>> | null;
  reason: string | null;
}

/** The status of a finished fetch (and its package's rules) against what the record under review expects. */
function decide(outcome: FetchOutcome, rules: RulesVerdict | null, row: LockedRow): Decided {
  const none = { sha256: null, size: null, entryCount: null, manifest: null, checks: null };
  if (outcome.kind !== 'fetched' || rules === null) return { ...none, status: outcome.kind === 'fetched' ? 'refused' : outcome.kind, reason: outcome.kind === 'fetched' ? null : outcome.reason.slice(0, 500) };
  const { report } = outcome;
  const found = { sha256: outcome.sha256, size: outcome.size, entryCount: report.entryCount, manifest: rules.manifest, checks: rules.checks };
  if (rules.refusal !== null) return { ...found, status: 'refused', reason: rules.refusal.slice(0, 500) };
  if (row.expected_sha256 === null || row.expected_sha256 === outcome.sha256) return { ...found, status: 'ok', reason: null };
  // watching is null when the plugin has no download of its own (never the live one).
  if (row.watching === true) return { ...found, status: 'changed', reason: `The file's SHA-256 is ${outcome.sha256}, not the ${row.expected_sha256} that was reviewed` };
  return { ...found, status: 'mismatch', reason: `The file's SHA-256 is ${outcome.sha256}, not the ${row.expected_sha256} the author gave` };
}

/** package.changed to the author and every administrator (and their webhooks), and an audit entry. */
async function tellOfChange(t: Sql, row: LockedRow, found: string): Promise<void> {
  const admins = await runNamed(t, 'store/package-checks/administrators', {});
  const recipients = [row.submitter_id, ...admins.map((admin) => admin.id)];
  const message = `The download of ${row.plugin_id} no longer matches what was reviewed: its SHA-256 is now ${found}, not ${row.expected_sha256}. Launchers refuse the new file; publish an update to mend it.`;
  await runNamed(t, 'notifications/create', { recipients, kind: 'package.changed', plugin_id: row.plugin_id, actor_id: null, message });
  await recordAudit(t, {
    actor: WATCH_ACTOR,
    action: 'package.changed',
    target: { type: 'plugin', plugin: row.plugin_id },
    before: { sha256: row.expected_sha256 },
    after: { sha256: found },
  });
}
