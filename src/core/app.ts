import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientIp } from './client-ip.js';
import { compose } from './compose.js';
import type { Context, Middleware, Route } from './context.js';
import { HttpError } from './errors.js';
import type { Logger } from './log.js';
import { compileRoutes } from './router.js';

export interface AppOptions<L extends object> {
  /** Service name, written into every log line. */
  name: string;
  routes: Route<L>[];
  /** Run for every request, before routing (request log, security headers...). */
  middleware?: Middleware<L>[];
  /** How this service writes an HttpError (the site and the image host differ). */
  renderError: (ctx: Context<L>, error: HttpError) => void;
  createLocals: () => L;
  log: Logger;
  trustProxy: boolean;
}

/** Longest request target accepted; longer ones get 414 before any routing. */
export const MAX_URL_LENGTH = 8 * 1024;
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Builds the `(req, res)` function of a service. It is separate from `listen` so
 * tests and benchmarks can mount it on any server.
 */
export function createApp<L extends object>(options: AppOptions<L>) {
  const router = compileRoutes(
    options.routes.map((route) => ({
      method: route.method,
      path: route.path,
      value: compose(route.use ?? [], route.handler),
    })),
  );
  const log = options.log.child({ service: options.name });

  const routeRequest = async (ctx: Context<L>): Promise<void> => {
    const found = router.find(ctx.method, ctx.path);
    if (!found.match) {
      if (found.allowed.length > 0) {
        const allow = found.allowed.join(', ');
        throw new HttpError(405, 'METHOD_NOT_ALLOWED', `Method ${ctx.method} is not allowed here`, {
          headers: { Allow: allow },
        });
      }
      throw new HttpError(404, 'NOT_FOUND', 'Not found');
    }
    const params = ctx.params as Record<string, string>;
    for (const [name, raw] of Object.entries(found.match.rawParams)) {
      params[name] = decodeParam(raw);
    }
    await found.match.value(ctx);
  };
  const pipeline = compose(options.middleware ?? [], routeRequest);

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const rawPath = queryAt === -1 ? target : target.slice(0, queryAt);
    const incomingId = req.headers['x-request-id'];
    const id = typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
    const ctx = new RequestContext<L>(req, res, id, rawPath, queryAt === -1 ? '' : target.slice(queryAt + 1), log, options);
    res.setHeader('X-Request-Id', id);
    try {
      checkTarget(target, rawPath);
      await pipeline(ctx);
    } catch (error) {
      answerError(ctx, error, options.renderError);
    }
  };
}

/**
 * The per-request context. The query, the client address and the request's logger
 * are made on first use: most requests (launchers polling /api/info) need none.
 */
class RequestContext<L extends object> implements Context<L> {
  readonly method: string;
  readonly params: Record<string, string> = Object.create(null);
  body: unknown = undefined;
  locals: L;
  #query: URLSearchParams | undefined;
  #ip: string | undefined;
  #log: Logger | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly id: string,
    readonly path: string,
    private readonly rawQuery: string,
    readonly serviceLog: Logger,
    private readonly options: AppOptions<L>,
  ) {
    this.method = req.method ?? 'GET';
    this.locals = options.createLocals();
  }

  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.rawQuery));
  }

  get ip(): string {
    return (this.#ip ??= clientIp(this.req, this.options.trustProxy));
  }

  get log(): Logger {
    return (this.#log ??= this.serviceLog.child({ requestId: this.id }));
  }
}

function checkTarget(target: string, rawPath: string): void {
  if (target.length > MAX_URL_LENGTH) throw new HttpError(414, 'BAD_REQUEST', 'Request target is too long');
  if (!rawPath.startsWith('/')) throw new HttpError(400, 'BAD_REQUEST', 'Malformed request target');
  try {
    decodeURIComponent(rawPath);
  } catch {
    // RFC 3986 2.1: "%" must be followed by two hex digits; a bad escape is the
    // client's error, never ours.
    throw new HttpError(400, 'BAD_REQUEST', 'Malformed percent-encoding in path');
  }
}

function decodeParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, 'BAD_REQUEST', 'Malformed percent-encoding in path');
  }
}

function answerError<L extends object>(
  ctx: Context<L>,
  error: unknown,
  renderError: (ctx: Context<L>, error: HttpError) => void,
): void {
  let httpError: HttpError;
  if (error instanceof HttpError) {
    httpError = error;
    if (error.status >= 500) ctx.log.error('request failed', { status: error.status, code: error.code, err: error.cause ?? error });
  } else {
    ctx.log.error('unhandled error', { err: error });
    httpError = new HttpError(500, 'INTERNAL', 'Internal server error');
  }
  if (ctx.res.headersSent) {
    // Too late for a clean answer: cut the connection so the client sees a
    // failure instead of a truncated body that looks complete.
    ctx.res.destroy();
    return;
  }
  // Leftover headers from the failed handler (ETag, Content-Type...) must not leak
  // into the error answer; the request id and security headers stay.
  for (const name of ctx.res.getHeaderNames()) {
    if (!KEEP_ON_ERROR.has(name)) ctx.res.removeHeader(name);
  }
  renderError(ctx, httpError);
}

const KEEP_ON_ERROR = new Set([
  'x-request-id',
  'x-content-type-options',
  'referrer-policy',
  'x-frame-options',
  'set-cookie',
  'connection',
]);
