import type { ServerResponse } from 'node:http';
import type { Logger } from '../lib/log.js';
import type { RouteMeter } from './metrics/http-metrics.js';

const MAX_LOGGED_PATH = 256;

/**
 * The status logged for a request whose client went away before any answer was
 * sent: there is no real one. 499 is nginx's "client closed request", which log
 * tools already know.
 */
export const CLIENT_CLOSED_REQUEST = 499;

/** What the request log reads of a request (the core's per-request context). */
export interface LoggedRequest {
  readonly id: string;
  readonly method: string;
  /** As received, still percent-encoded, without the query. */
  readonly path: string;
  readonly ip: string;
  readonly res: ServerResponse;
  /** The Content-Length its answer declared, once the head is written. */
  readonly contentLength: number | undefined;
  /** The status client-error.ts answered with in the request's place, if it did. */
  readonly clientErrorStatus: number | undefined;
  /** The route's meter (metrics on), read when the answer is done: the route is found after this is called. */
  readonly meter: RouteMeter | undefined;
}

/**
 * One JSON line per request once its answer is finished, or the connection ended
 * first, and the request counted on its route's meter when `metered` (/metrics).
 * A line of an ended connection carries `"aborted":true`; its status is the one
 * sent when the head went out (the body was cut short), the one client-error.ts
 * answered with (a request timeout), or else CLIENT_CLOSED_REQUEST.
 *
 * The query string is left out on purpose: it carries OAuth codes and states.
 * This runs for every request, so the line is built here directly rather than
 * through an object and JSON.stringify. Only the path can hold arbitrary text and
 * is escaped; the request id (validated or generated), the method (Node's parser
 * accepts only known methods) and the address (from the
 * socket, or validated from X-Forwarded-For) cannot hold a quote or a backslash.
 */
export function logWhenDone(request: LoggedRequest, log: Logger, metered: boolean): void {
  // Under LOG_LEVEL=warn or error the line would be dropped: unless metrics count
  // the request, do not time or watch for it. One listener serves both.
  const logging = log.enabled('info');
  if (!logging && !metered) return;
  // performance.now() is a plain number; hrtime.bigint() made a BigInt twice a request.
  const started = performance.now();
  // Read now: once the answer is done the socket may be gone.
  const ip = logging ? request.ip : '';
  // A server response always emits 'close', exactly once: after 'finish', or when
  // the connection ended first (then writableFinished is false). `on`, not `once`:
  // once() wraps the listener in a second function on every request for nothing.
  request.res.on('close', () => {
    const ms = Math.round((performance.now() - started) * 100) / 100;
    const res = request.res;
    const finished = res.writableFinished;
    const status = request.clientErrorStatus ?? (finished || res.headersSent ? res.statusCode : CLIENT_CLOSED_REQUEST);
    request.meter?.observe(status, ms);
    if (!logging) return;
    const path = request.path.length > MAX_LOGGED_PATH ? request.path.slice(0, MAX_LOGGED_PATH) + '…' : request.path;
    const bytes = request.contentLength ?? 0;
    log.raw(
      'info',
      'request',
      `"requestId":"${request.id}","method":"${request.method}","path":${JSON.stringify(path)},"status":${status},"ms":${ms}` +
        `${bytes ? `,"bytes":${bytes}` : ''},"ip":"${ip}"${finished ? '' : ',"aborted":true'}`,
    );
  });
}
