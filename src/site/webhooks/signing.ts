import { createHmac, randomBytes } from 'node:crypto';

// A webhook's secret and the signature of each delivery: GitHub's scheme, the
// hex HMAC-SHA256 of the exact body bytes keyed with the secret's UTF-8 bytes,
// sent as `X-Signature-256: sha256=<hex>`.

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** `whsec_` and 256 random bits in base64url. */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64url');
}

export function signatureHeader(secret: string, body: Buffer | string): string {
  return 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
}
