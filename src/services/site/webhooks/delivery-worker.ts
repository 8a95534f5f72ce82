import { wallClock } from '../../../lib/clock.js';
import type { Logger } from '../../../lib/log.js';
import type { Sample } from '../../../http/metrics/exposition.js';
import type { Sql } from '../../../db/pool.js';
import { createJobLoop, type Lease } from '../../../db/job-loop.js';
import { runNamed } from '../../../db/queries.js';
import type { WebhooksClaimRow } from '../../../db/query-rows.js';
import { attemptDelivery, ATTEMPT_DEADLINE_MS, type AttemptResult } from './attempt.js';
import { retryDelayMs } from './backoff.js';
import { createDeliveryDispatcher } from './delivery-dispatcher.js';
import type { DeliveryFailureReason } from './failure-reasons.js';
import type { WebhookWorkerOptions } from '../context.js';

// The webhook delivery queue's worker; one runs in every site process, and they
// share the queue (webhook_deliveries) through the job loop (db/job-loop.ts): a
// claim leases due rows (locked_until) for one attempt each, so two processes never
// attempt the same row at once, and a row whose process died mid-attempt is claimed
// again once its lease is over. Only the claimant may finish a row (its claim id),
// and only while it is pending: a delivered row is never sent again. The loop is
// woken by NOTIFY webhook_deliveries, sent when a transaction that queued
// deliveries commits, in any process.

export const WEBHOOK_CHANNEL = 'webhook_deliveries';
export const POLL_INTERVAL_MS = 1_500;
/** Deliveries attempted at once by one process (the size of its batches). */
export const DELIVERY_CONCURRENCY = 4;
/** Longer than any attempt (ATTEMPT_DEADLINE_MS), so a live attempt never loses its lease. */
export const LEASE_MS = 2 * ATTEMPT_DEADLINE_MS;

type ClaimedRow = WebhooksClaimRow;

export interface WebhookWorker {
  /** Starts polling and listening; idempotent. */
  start(): Promise<void>;
  /** Claims one batch of due deliveries and attempts them; answers how many were claimed. */
  runOnce(): Promise<number>;
  /** Stops polling, aborts attempts under way (they are retried later) and waits for them. */
  stop(): Promise<void>;
  metrics(): Promise<Sample[]>;
}

export function createWebhookWorker(deps: { sql: Sql; log: Logger }, options: WebhookWorkerOptions = {}): WebhookWorker {
  const log = deps.log.child({ feature: 'webhooks' });
  const clock = options.clock ?? wallClock;
  const ownDispatcher = options.dispatcher === undefined;
  const dispatcher = options.dispatcher ?? createDeliveryDispatcher({ ...(options.ports ? { ports: options.ports } : {}), ...(options.outbound ? { outbound: options.outbound } : {}) });
  let failures = 0;
  let delivered = 0;

  const finish = async (row: ClaimedRow, claim: string, result: AttemptResult) => {
    const now = clock();
    if (result.ok) {
      await runNamed(deps.sql, 'webhooks/mark-delivered', { delivery_id: row.id, claim, delivered_at: new Date(now), status: result.statusCode });
      delivered++;
      return;
    }
    failures++;
    const next = new Date(now + retryDelayMs(row.attempts));
    // The history keeps the coarse reason only; the detail (which may name an
    // internal address) is in this log line and nowhere else.
    const [outcome] = await runNamed(deps.sql, 'webhooks/mark-failed', {
      delivery_id: row.id,
      claim,
      next_at: next,
      status: result.statusCode,
      reason: result.reason,
    });
    const fields = { delivery: row.id, attempts: row.attempts, reason: result.reason, status: result.statusCode, detail: result.detail };
    if (outcome?.status === 'failed') log.info('webhook delivery given up after 24 hours', fields);
    else log.info('webhook delivery attempt failed', fields);
  };

  const deliver = async (row: ClaimedRow, { claim }: Lease, signal: AbortSignal) => {
    if (row.url === null || row.secret === null) {
      await runNamed(deps.sql, 'webhooks/give-up', { delivery_id: row.id, claim, reason: 'webhook_removed' satisfies DeliveryFailureReason });
      return;
    }
    const result = await attemptDelivery(
      dispatcher,
      {
        deliveryId: row.id,
        sentAt: clock(),
        url: row.url,
        secret: row.secret,
        payload: {
          id: Number(row.notification_id),
          kind: row.kind,
          plugin: row.plugin_id,
          actor: row.actor,
          message: row.message,
          createdAt: new Date(row.notification_created_at).toISOString(),
        },
      },
      signal,
    );
    await finish(row, claim, signal.aborted && !result.ok ? { ...result, reason: 'interrupted', detail: `shutting down (${result.detail})` } : result);
  };

  const loop = createJobLoop<ClaimedRow>({
    sql: deps.sql,
    log,
    name: 'webhook delivery',
    channel: WEBHOOK_CHANNEL,
    pollMs: options.pollIntervalMs ?? POLL_INTERVAL_MS,
    concurrency: options.concurrency ?? DELIVERY_CONCURRENCY,
    leaseMs: LEASE_MS,
    clock,
    claim: (lease) => runNamed(deps.sql, 'webhooks/claim', { now: lease.now, locked_until: lease.until, limit: lease.limit, claim: lease.claim }),
    work: deliver,
    describe: (row) => ({ delivery: row.id }),
  });

  return {
    start: loop.start,
    runOnce: loop.runOnce,
    async stop() {
      await loop.stop();
      if (ownDispatcher) await dispatcher.close().catch(() => undefined);
    },
    async metrics() {
      // PostgreSQL unavailable: the scrape still answers (the pool figures say why), with NaN here.
      const pending = await runNamed(deps.sql, 'webhooks/pending-count', {}).then(
        ([row]) => row?.pending ?? 0,
        () => NaN,
      );
      return [
        { name: 'webhook_queue_depth', help: 'Webhook deliveries pending (due or waiting to retry), in PostgreSQL; NaN when it could not be read', type: 'gauge', value: pending },
        { name: 'webhook_delivery_failures_total', help: 'Webhook delivery attempts that failed in this process', type: 'counter', value: failures },
        { name: 'webhook_deliveries_total', help: 'Webhook deliveries that succeeded in this process', type: 'counter', value: delivered },
      ];
    },
  };
}
