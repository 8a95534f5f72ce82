import { HttpError } from '../../../http/errors.js';

// How the image host failing reads to the site's users: a 502 UPSTREAM_FAILED
// whose message says what went wrong, never how to reach the image host (no
// address, no token), so it can be answered as it is.

/** A 502 whose message says what went wrong with the image host. */
export function upstreamFailed(message: string): HttpError {
  return new HttpError(502, 'UPSTREAM_FAILED', message, { cause: new Error(message) });
}

/** An answer larger than its call reads (limits.ts): a broken image host, not one to wait for. */
export class AnswerTooLarge extends Error {
  override name = 'AnswerTooLarge';
  readonly code = 'IMAGE_HOST_ANSWER_TOO_LARGE';
}

/** What went wrong reaching the image host, by undici's or the socket's error code. */
export function transportFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'The image host did not accept a connection in time';
    case 'UND_ERR_HEADERS_TIMEOUT':
      return 'The image host did not answer in time';
    case 'UND_ERR_BODY_TIMEOUT':
      return 'The image host stopped in the middle of its answer';
    case 'IMAGE_HOST_ANSWER_TOO_LARGE':
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return 'The image host sent an answer too large for what was asked';
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `The image host could not be reached (${code})`;
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
    case 'EPIPE':
      return 'The image host closed the connection';
    default:
      return `The image host could not be reached${typeof code === 'string' ? ` (${code})` : ''}`;
  }
}

/** An answer of a status no call expects, in words an operator can act on. */
export function statusFailure(status: number): string {
  if (status === 401 || status === 403) return `The image host refused the site's upload token (answered ${status}); check IMGHOST_UPLOAD_TOKEN`;
  if (status === 503) return 'The image host is busy (answered 503); try again shortly';
  if (status === 507) return 'The image host\'s disk is full (answered 507)';
  return `The image host failed (answered ${status})`;
}
