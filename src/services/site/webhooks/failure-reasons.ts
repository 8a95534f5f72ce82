// Why a delivery attempt failed, as the delivery history shows it (`lastError`):
// one of a few coarse, stable reasons. The detail (the error's text, the address a
// name resolved to) goes to the server log only: shown to the user, it would tell
// them what names resolve to inside the site's network and how its hosts answer.

export const DELIVERY_FAILURE_REASONS = [
  /** The host is, or resolves to, an address outside public unicast. */
  'address_not_allowed',
  /** The URL's port is not 443, 8443 or one of WEBHOOK_ALLOWED_PORTS. */
  'port_not_allowed',
  /** The host name did not resolve. */
  'dns_failed',
  /** No connection, or it was refused, reset or closed before an answer. */
  'connect_failed',
  /** The TLS handshake failed (the certificate included). */
  'tls_failed',
  /** Connecting, the answer's headers or the whole attempt took too long. */
  'timeout',
  /** An answer that is not 2xx (lastStatusCode has it). */
  'http_status',
  /** A 3xx answer: redirects are never followed (lastStatusCode has it). */
  'redirect',
  /** The site was shutting down during the attempt; it is retried. */
  'interrupted',
  /** The webhook was removed before the delivery was made. */
  'webhook_removed',
  /** Anything else. */
  'delivery_failed',
] as const;

export type DeliveryFailureReason = (typeof DELIVERY_FAILURE_REASONS)[number];

const known = new Set<string>(DELIVERY_FAILURE_REASONS);

/** The reason of an answer's status code that is not a success. */
export function statusReason(statusCode: number): DeliveryFailureReason {
  return statusCode >= 300 && statusCode < 400 ? 'redirect' : 'http_status';
}

const DNS_CODES = new Set(['WEBHOOK_DNS_FAILED', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME', 'ENODATA', 'ESERVFAIL']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EPIPE', 'EADDRNOTAVAIL', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
// OpenSSL's and Node's TLS codes, and the certificate checks' (CERT_HAS_EXPIRED,
// DEPTH_ZERO_SELF_SIGNED_CERT, UNABLE_TO_VERIFY_LEAF_SIGNATURE...).
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_)|CERT|^UNABLE_TO_|^HOSTNAME_MISMATCH$/;

/** The reason of one error code (a string code: DOMException's are numbers), or undefined. */
function codeReason(code: string): DeliveryFailureReason | undefined {
  if (code === 'WEBHOOK_ADDRESS_REFUSED') return 'address_not_allowed';
  if (code === 'WEBHOOK_PORT_REFUSED') return 'port_not_allowed';
  if (DNS_CODES.has(code)) return 'dns_failed';
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  if (CONNECT_CODES.has(code)) return 'connect_failed';
  if (TLS_CODE.test(code)) return 'tls_failed';
  return undefined;
}

/** The reason of an attempt that ended in an error, from the error and its causes. */
export function errorReason(error: unknown): DeliveryFailureReason {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    const reason = typeof code === 'string' ? codeReason(code) : undefined;
    if (reason) return reason;
    // AbortSignal.timeout's reason (the attempt's deadline).
    if (cause.name === 'TimeoutError') return 'timeout';
    if ((cause as { library?: unknown }).library === 'SSL routines') return 'tls_failed';
    // A proxy that would not open the tunnel (it refused the address, or could not connect).
    if (/^Proxy response \(\d+\)/.test(cause.message)) return 'connect_failed';
  }
  return 'delivery_failed';
}

/**
 * What the history shows for a stored `last_error`. Rows written before the
 * reasons existed hold the detailed text ("HTTP 500 (not a 2xx answer)",
 * "WEBHOOK_ADDRESS_REFUSED: x resolves to 10.0.0.1, which is not public"): they
 * are mapped here, on read, and the text itself is never shown.
 */
export function shownReason(stored: string | null): DeliveryFailureReason | null {
  if (stored === null) return null;
  if (known.has(stored)) return stored as DeliveryFailureReason;
  const status = /^HTTP (\d{3})\b/.exec(stored);
  if (status) return statusReason(Number(status[1]));
  if (stored.startsWith('interrupted')) return 'interrupted';
  if (stored.startsWith('cancelled')) return 'webhook_removed';
  const code = /^([A-Z][A-Z0-9_]+): /.exec(stored);
  const reason = code ? codeReason(code[1]!) : undefined;
  if (reason) return reason;
  return /timeout|timed out/i.test(stored) ? 'timeout' : 'delivery_failed';
}
