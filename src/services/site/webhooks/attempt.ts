import type { Dispatcher } from 'undici';
import { errorReason, statusReason, type DeliveryFailureReason } from './failure-reasons.js';
import { signatureHeader, timestampedSignatureHeader } from './signing.js';

// One delivery attempt: the POST and what came of it. A 2xx answer is a success;
// anything else (another status, a redirect, which is never followed, a refused
// address, a timeout, a TLS error) is a failure to retry, with its coarse reason
// (for the history) and its detail (for the server log only). The answer's body
// is read up to a bound and thrown away.

export const WEBHOOK_USER_AGENT = 'launcher-web-webhooks/1';
/** Longest a whole attempt may take, whatever the dispatcher's own timeouts. */
export const ATTEMPT_DEADLINE_MS = 30_000;
const MAX_DRAINED_BYTES = 64 * 1024;
const MAX_DETAIL_LENGTH = 500;

export interface WebhookPayload {
  id: number;
  kind: string;
  plugin: string | null;
  actor: string | null;
  message: string;
  createdAt: string;
}

export interface AttemptInput {
  deliveryId: string;
  /** When the attempt is made, in milliseconds: signed, as Unix seconds, with the body. */
  sentAt: number;
  url: string;
  secret: string;
  payload: WebhookPayload;
}

export type AttemptResult =
  | { ok: true; statusCode: number }
  | { ok: false; statusCode: number | null; reason: DeliveryFailureReason; detail: string };

export async function attemptDelivery(dispatcher: Dispatcher, input: AttemptInput, signal?: AbortSignal): Promise<AttemptResult> {
  const body = Buffer.from(JSON.stringify(input.payload), 'utf8');
  const timestamp = Math.floor(input.sentAt / 1000);
  const url = new URL(input.url);
  const deadline = AbortSignal.timeout(ATTEMPT_DEADLINE_MS);
  try {
    const answer = await dispatcher.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': WEBHOOK_USER_AGENT,
        'x-webhook-delivery': input.deliveryId,
        'x-webhook-event': input.payload.kind,
        'x-signature-256': signatureHeader(input.secret, body),
        'x-webhook-timestamp': String(timestamp),
        'x-webhook-signature': timestampedSignatureHeader(input.secret, timestamp, body),
      },
      body,
      signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
    });
    await answer.body.dump({ limit: MAX_DRAINED_BYTES }).catch(() => undefined);
    if (answer.statusCode >= 200 && answer.statusCode < 300) return { ok: true, statusCode: answer.statusCode };
    const reason = statusReason(answer.statusCode);
    return { ok: false, statusCode: answer.statusCode, reason, detail: `HTTP ${answer.statusCode}` };
  } catch (error) {
    return { ok: false, statusCode: null, reason: errorReason(error), detail: describe(error) };
  }
}

/** One line for the server log: each error of the chain with its code, outermost first (a refused address names it). */
function describe(error: unknown): string {
  const parts: string[] = [];
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 4; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    parts.push(typeof code === 'string' ? `${code}: ${cause.message}` : `${cause.name}: ${cause.message}`);
  }
  const text = parts.length > 0 ? parts.join(' <- ') : String(error);
  return text.length > MAX_DETAIL_LENGTH ? text.slice(0, MAX_DETAIL_LENGTH - 1) + '…' : text;
}
