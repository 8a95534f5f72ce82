// One error type for everything a client can cause. `code` is stable and is what
// tests and clients match on; `message` is for humans; `field` names the offending
// input on validation errors. Anything thrown that is not an HttpError is a bug and
// becomes a logged 500 with a generic message (see app.ts, answerError).

export type ErrorCode =
  | 'BAD_REQUEST'
  | 'VALIDATION_FAILED'
  | 'UNAUTHORIZED'
  | 'INVALID_CREDENTIALS'
  | 'LOGIN_DENIED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'GONE'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RANGE_NOT_SATISFIABLE'
  | 'RATE_LIMITED'
  | 'INTERNAL'
  | 'UPSTREAM_FAILED'
  | 'UNAVAILABLE'
  | 'INSUFFICIENT_STORAGE';

export interface HttpErrorOptions {
  field?: string;
  /** Extra response headers, e.g. Allow or Retry-After. */
  headers?: Record<string, string>;
  /** Answer as text/plain with just the message (the image host's /img and /SF). */
  plain?: boolean;
  cause?: unknown;
}

export class HttpError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly headers: Record<string, string> | undefined;
  readonly plain: boolean;

  constructor(status: number, code: ErrorCode, message: string, options: HttpErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.field = options.field;
    this.headers = options.headers;
    this.plain = options.plain ?? false;
  }
}

export const badRequest = (message: string, field?: string) =>
  new HttpError(400, 'BAD_REQUEST', message, { field });

export const validationFailed = (field: string, message: string) =>
  new HttpError(400, 'VALIDATION_FAILED', message, { field });

export const payloadTooLarge = (message = 'Request body is too large') =>
  new HttpError(413, 'PAYLOAD_TOO_LARGE', message);

export const notFound = (message = 'Not found') => new HttpError(404, 'NOT_FOUND', message);

export const isHttpError = (value: unknown): value is HttpError => value instanceof HttpError;
