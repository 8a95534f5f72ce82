import { createHmac, randomBytes } from 'node:crypto';

// A webhook's secret and the signatures of each delivery, keyed with the secret's
// UTF-8 bytes:
// - `X-Signature-256: sha256=<hex>`: GitHub's scheme, the HMAC-SHA256 of the exact
//   body bytes. Kept as it was for receivers that check it, but a captured request
//   carries a valid one forever: it can be replayed.
// - `X-Webhook-Timestamp: <Unix seconds>` and `X-Webhook-Signature: v1=<hex>`, the
//   HMAC-SHA256 of `<timestamp>.<body>` (Stripe's and Slack's scheme): each attempt
//   signs its own time, so a receiver that refuses a timestamp more than 5 minutes
//   from its clock refuses a replay after that. `v1=` names the scheme, so another
//   could be sent beside it one day.

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** `whsec_` and 256 random bits in base64url. */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** X-Signature-256: the body alone. */
export function signatureHeader(secret: string, body: Buffer | string): string {
  return 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
}

/** X-Webhook-Signature: the timestamp (X-Webhook-Timestamp, Unix seconds), a dot and the body. */
export function timestampedSignatureHeader(secret: string, timestamp: number, body: Buffer | string): string {
  return 'v1=' + createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}
