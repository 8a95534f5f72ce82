import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { Logger } from '../../../lib/log.js';
import type { Sample } from '../../../http/metrics/exposition.js';
import type { Sql } from '../../../db/pool.js';
import { runNamed } from '../../../db/queries.js';
import type { WebhooksClaimRow } from '../../../db/query-rows.js';
import { attemptDelivery, ATTEMPT_DEADLINE_MS, type AttemptResult } from './attempt.js';
import { retryDelayMs } from './backoff.js';
import { createDeliveryDispatcher } from './delivery-dispatcher.js';
import type { DeliveryFailureReason } from './failure-reasons.js';
import type { OutboundSettings } from '../outbound/proxy-settings.js';

// The webhook delivery queue's worker; one runs in every site process, and they
// share the queue (webhook_deliveries) through PostgreSQL: a claim takes due rows
// with FOR UPDATE SKIP LOCKED and leases them (locked_until) for one attempt, so
// two processes never attempt the same row at once, and a row whose process died
// mid-attempt is claimed again once its lease is over. Only the claimant may
// finish a row (its claim id), and only while it is pending: a delivered row is
// never sent again.
//
// It runs a batch, then waits for the next poll (with jitter, so processes spread
// out) or for a wake-up: PostgreSQL's NOTIFY on webhook_deliveries, sent when a
// transaction that queued deliveries commits, in any process.

export const WEBHOOK_CHANNEL = 'webhook_deliveries';
export const POLL_INTERVAL_MS = 1_500;
/** Deliveries attempted at once by one process (the size of its batches). */
export const DELIVERY_CONCURRENCY = 4;
/** Longer than any attempt (ATTEMPT_DEADLINE_MS), so a live attempt never loses its lease. */
export const LEASE_MS = 2 * ATTEMPT_DEADLINE_MS;

export interface WebhookWorkerOptions {
  /** Now, in milliseconds; Date.now unless a test moves time itself. */
  clock?: () => number;
  /** Where deliveries go through; createDeliveryDispatcher({ports}) unless given (then not closed by stop). */
  dispatcher?: Dispatcher;
  /** The ports the dispatcher made here allows (the site passes SiteSettings.webhookPorts); 443 and 8443 unless given. */
  ports?: readonly number[];
  /** The proxies and trusted roots the dispatcher made here uses (the site passes SiteSettings.outbound); none unless given. */
  outbound?: OutboundSettings;
  pollIntervalMs?: number;
  concurrency?: number;
  /** False: the site does not start its worker (a test drives one of its own). */
  start?: boolean;
}

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
  const clock = options.clock ?? Date.now;
  const ownDispatcher = options.dispatcher === undefined;
  const dispatcher = options.dispatcher ?? createDeliveryDispatcher({ ...(options.ports ? { ports: options.ports } : {}), ...(options.outbound ? { outbound: options.outbound } : {}) });
  const pollMs = options.pollIntervalMs ?? POLL_INTERVAL_MS;
  const concurrency = options.concurrency ?? DELIVERY_CONCURRENCY;
  const stopping = new AbortController();
  let failures = 0;
  let delivered = 0;
  let loop: Promise<void> | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  let wake: (() => void) | undefined;
  let wakeRequested = false;

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

  const deliver = async (row: ClaimedRow, claim: string) => {
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
      stopping.signal,
    );
    await finish(row, claim, stopping.signal.aborted && !result.ok ? { ...result, reason: 'interrupted', detail: `shutting down (${result.detail})` } : result);
  };

  const runOnce = async (): Promise<number> => {
    const now = clock();
    const claim = randomUUID();
    const rows = await runNamed(deps.sql, 'webhooks/claim', { now: new Date(now), locked_until: new Date(now + LEASE_MS), limit: concurrency, claim });
    await Promise.all(
      rows.map((row) =>
        deliver(row, claim).catch((error: unknown) => {
          // The row keeps its lease and is claimed again when it ends.
          log.warn('recording a webhook delivery failed', { delivery: row.id, err: error });
        }),
      ),
    );
    return rows.length;
  };

  const pause = () =>
    new Promise<void>((resolve) => {
      if (wakeRequested || stopping.signal.aborted) {
        wakeRequested = false;
        return resolve();
      }
      const timer = setTimeout(done, pollMs * (0.75 + Math.random() * 0.5));
      // The poll alone never keeps a process alive (the server and the pool do).
      timer.unref();
      function done() {
        clearTimeout(timer);
        wake = undefined;
        wakeRequested = false;
        resolve();
      }
      wake = done;
    });

  const run = async () => {
    while (!stopping.signal.aborted) {
      try {
        // A full batch suggests more is due: go on at once.
        while (!stopping.signal.aborted && (await runOnce()) === concurrency);
      } catch (error) {
        log.warn('webhook queue unavailable', { err: error });
      }
      await pause();
    }
  };

  const nudge = () => {
    if (wake) wake();
    else wakeRequested = true;
  };

  return {
    async start() {
      if (loop || stopping.signal.aborted) return;
      loop = run();
      try {
        const listening = await deps.sql.listen(WEBHOOK_CHANNEL, nudge);
        unlisten = () => listening.unlisten();
        if (stopping.signal.aborted) await unlisten();
      } catch (error) {
        // Polling alone still delivers, a little later.
        log.warn('listening for webhook deliveries failed; polling only', { err: error });
      }
    },
    runOnce,
    async stop() {
      stopping.abort();
      nudge();
      await unlisten?.().catch(() => undefined);
      await loop;
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
