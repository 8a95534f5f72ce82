import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { answerHeaders, startAnswer, type HeaderList } from './answer/head.js';
import { clientIp } from './client-ip.js';
import { createClientErrorHandler, type RenderedError } from './client-error.js';
import { compose, DONE } from './compose.js';
import type { Context, Middleware, Route } from './context.js';
import { HttpError } from './errors.js';
import type { Logger } from '../lib/log.js';
import { CLIENT_REQUEST_ID, nextRequestId } from './request-id.js';
import type { HttpMetrics, RouteMeter } from './metrics/http-metrics.js';
import { requestLog } from './request-log.js';
import { sendBody } from './answer/index.js';
import { compileRoutes, NO_PARAMS } from './router.js';
import { SECURITY_HEADERS } from './security-headers.js';

// What every request gets from the core, whatever its route: an id, a head that
// carries the id and the service's answer headers (answer/head.ts), one log line
// (request-log.ts), and an answer in the service's error format for anything
// thrown. Requests Node refuses before they reach us get the same
// (client-error.ts, through the `clientError` of the handler).

export interface AppOptions<L extends object> {
  /** Service name, written into every log line. */
  name: string;
  routes: Route<L>[];
  /** Run for every request, routed or not, before the route's own middleware and handler. */
  middleware?: Middleware<L>[];
  /** Headers every answer carries besides X-Request-Id; SECURITY_HEADERS by default. */
  answerHeaders?: HeaderList;
  /** How this service writes an HttpError as a body (the site and the image host differ). */
  renderError: (error: HttpError) => RenderedError;
  createLocals: () => L;
  log: Logger;
  /** Proxies trusted to append to X-Forwarded-For (see client-ip.ts); 0 or false: none. */
  trustProxy: number | boolean;
  /**
   * Parses a request's query on first use of ctx.query (URLSearchParams by default);
   * it may throw an HttpError, which answers the request. The site refuses NUL
   * (storableQuery, query-params.ts).
   */
  parseQuery?: (raw: string) => URLSearchParams;
  /** Counts requests by route and status for /metrics (METRICS_TOKEN set); none when absent. */
  metrics?: HttpMetrics;
}

/** Longest request target accepted; longer ones get 414 before any routing. */
export const MAX_URL_LENGTH = 8 * 1024;

type Chain<L extends object> = (ctx: Context<L>) => Promise<void>;

/** What the router finds for a route: its composed chain, and its meter when metrics are on. */
interface CompiledRoute<L extends object> {
  run: Chain<L>;
  meter: RouteMeter | undefined;
}

/** A service's `(req, res)` function, and its server's 'clientError' listener. */
export interface AppHandler {
  (req: IncomingMessage, res: ServerResponse): Promise<void>;
  clientError(error: Error & { code?: string }, socket: Duplex): void;
}

/**
 * Builds the `(req, res)` function of a service. It is separate from `listen` so
 * tests and benchmarks can mount it on any server (with its `clientError`).
 */
export function createApp<L extends object>(options: AppOptions<L>): AppHandler {
  const middleware = options.middleware ?? [];
  // Each route's whole chain (the service's middleware, then the route's own, then
  // its handler) is composed once, here. A request finds its route first and runs
  // one chain, rather than a service chain whose last step routes and starts a
  // second chain: a level of promises and closures fewer on every request.
  const metrics = options.metrics;
  const router = compileRoutes<CompiledRoute<L>>(
    options.routes.map((route) => ({
      method: route.method,
      path: route.path,
      value: {
        run: compose([...middleware.filter((step) => actsOn(step, route.method)), ...(route.use ?? [])], route.handler),
        meter: metrics?.meterFor(route.method, route.path),
      },
    })),
  );
  const unmatchedMeter = metrics?.unmatched;
  // A request no route takes (a malformed target, an unknown path, a wrong method,
  // a bad escape in a parameter) still passes the service's middleware, in the
  // same order as any other.
  const refuse: Chain<L> = compose(middleware, (ctx) => {
    throw (ctx as RequestContext<L>).refusal;
  });
  const log = options.log.child({ service: options.name });
  const logRequest = requestLog(log, metrics !== undefined);
  const ours = answerHeaders(options.answerHeaders ?? SECURITY_HEADERS);
  const renderError = options.renderError;

  /** The chain this request runs; a refused request carries its error on ctx. */
  const chainFor = (ctx: RequestContext<L>, target: string): Chain<L> => {
    const problem = targetProblem(ctx.req, target, ctx.path);
    if (problem) {
      ctx.refusal = problem;
      ctx.meter = unmatchedMeter;
      return refuse;
    }
    const found = router.find(ctx.method, ctx.path);
    if (!found.match) {
      ctx.refusal =
        found.allowed.length > 0
          ? new HttpError(405, 'METHOD_NOT_ALLOWED', `Method ${ctx.method} is not allowed here`, {
              headers: { Allow: found.allowed.join(', ') },
            })
          : new HttpError(404, 'NOT_FOUND', 'Not found');
      ctx.meter = unmatchedMeter;
      return refuse;
    }
    const route = found.match.value;
    ctx.meter = route.meter;
    // A static route's parameters are the shared empty object: nothing to decode.
    if (found.match.rawParams !== NO_PARAMS && !decodeParams(found.match.rawParams)) {
      ctx.refusal = malformedEscape();
      return refuse;
    }
    ctx.params = found.match.rawParams;
    return route.run;
  };

  // Not an async function: the chain already returns a promise, and awaiting it
  // here would cost one more promise and one more microtask on every request.
  const handle = function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const rawPath = queryAt === -1 ? target : target.slice(0, queryAt);
    const incomingId = req.headers['x-request-id'];
    const id = typeof incomingId === 'string' && CLIENT_REQUEST_ID.test(incomingId) ? incomingId : nextRequestId();
    const ctx = new RequestContext<L>(req, res, id, rawPath, queryAt === -1 ? '' : target.slice(queryAt + 1), log, options);
    startAnswer(res, ctx, ours);
    logRequest(ctx);
    // A chain never throws: compose turns a throw into a rejected promise. A chain
    // that ended without waiting (a handler that answered at once) answers DONE,
    // which cannot fail: nothing to wait for.
    const ran = chainFor(ctx, target)(ctx);
    return ran === DONE ? DONE : ran.then(undefined, (error: unknown) => answerError(ctx, error, renderError));
  } as AppHandler;
  handle.clientError = createClientErrorHandler({ log, answerHeaders: ours, renderError });
  return handle;
}

/**
 * The per-request context. The query, the client address and the request's logger
 * are made on first use: most requests (launchers polling /api/info) need none.
 */
class RequestContext<L extends object> implements Context<L> {
  readonly method: string;
  params: Readonly<Record<string, string>> = NO_PARAMS;
  body: unknown = undefined;
  locals: L;
  contentLength: number | undefined = undefined;
  clientErrorStatus: number | undefined = undefined;
  /** Why no route takes this request; thrown at the end of the service's middleware. */
  refusal: HttpError | undefined = undefined;
  /** Where the finished request is counted (metrics on); set once its route is known. */
  meter: RouteMeter | undefined = undefined;
  logStartedAt = 0;
  logIp = '';
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
    return (this.#query ??= this.options.parseQuery ? this.options.parseQuery(this.rawQuery) : new URLSearchParams(this.rawQuery));
  }

  get ip(): string {
    return (this.#ip ??= clientIp(this.req, this.options.trustProxy));
  }

  get log(): Logger {
    return (this.#log ??= this.serviceLog.child({ requestId: this.id }));
  }
}

function targetProblem(req: IncomingMessage, target: string, rawPath: string): HttpError | undefined {
  if (target.length > MAX_URL_LENGTH) return new HttpError(414, 'BAD_REQUEST', 'Request target is too long');
  if (!rawPath.startsWith('/')) return new HttpError(400, 'BAD_REQUEST', 'Malformed request target');
  // RFC 9112 3.2: an HTTP/1.1 request without Host is answered 400. Node would
  // answer it itself, without our headers or a log line (server.ts turns that off).
  if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1) {
    return new HttpError(400, 'BAD_REQUEST', 'Missing Host header');
  }
  // Without a `%` there is no escape to get wrong, and nothing to decode.
  if (!rawPath.includes('%')) return undefined;
  try {
    decodeURIComponent(rawPath);
  } catch {
    // RFC 3986 2.1: "%" must be followed by two hex digits; a bad escape is the
    // client's error, never ours.
    return malformedEscape();
  }
  return undefined;
}

/** Whether service middleware acts on a route's requests (its method, and HEAD for GET): see Middleware's onlyFor. */
function actsOn(step: Middleware<any>, routeMethod: string): boolean {
  const methods = step.onlyFor;
  if (methods === undefined) return true;
  const method = routeMethod.toUpperCase();
  return methods.has(method) || (method === 'GET' && methods.has('HEAD'));
}

const malformedEscape = () => new HttpError(400, 'BAD_REQUEST', 'Malformed percent-encoding in path');

/** Decodes a match's parameters in place (the router made them for this request); false on a bad escape. */
function decodeParams(params: Record<string, string>): boolean {
  for (const name in params) {
    const raw = params[name]!;
    if (!raw.includes('%')) continue;
    try {
      params[name] = decodeURIComponent(raw);
    } catch {
      return false;
    }
  }
  return true;
}

function answerError<L extends object>(ctx: Context<L>, error: unknown, renderError: (error: HttpError) => RenderedError): void {
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
  // into the error answer. Cookies stay; the request id and the security headers
  // are not in this table at all (answer/head.ts) and come with the error's head.
  for (const name of ctx.res.getHeaderNames()) {
    if (!KEEP_ON_ERROR.has(name)) ctx.res.removeHeader(name);
  }
  // A writeHead that threw (a header value a handler should have checked) has
  // already set its reason phrase, which Node would keep: "500 Found".
  ctx.res.statusMessage = '';
  const { contentType, body } = renderError(httpError);
  sendBody(ctx, httpError.status, body, contentType, { 'Cache-Control': 'no-store', ...httpError.headers });
}

const KEEP_ON_ERROR = new Set(['set-cookie', 'connection']);
