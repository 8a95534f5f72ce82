import type { ServerResponse } from 'node:http';
import type { Logger } from '../lib/log.js';
import { AppResponse } from './answer-head.js';
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
  /** Kept here by the request log when the request starts (performance.now()), so that nothing else is made per request. */
  logStartedAt: number;
  /** The client address as logged, read when the request starts. */
  logIp: string;
}

/**
 * The request log of a service: a function to call when a request starts, that
 * writes one JSON line once its answer is finished, or the connection ended first,
 * and counts the request on its route's meter when `metered` (/metrics). A line of
 * an ended connection carries `"aborted":true`; its status is the one sent when the
 * head went out (the body was cut short), the one client-error.ts answered with (a
 * request timeout), or else CLIENT_CLOSED_REQUEST.
 *
 * The query string is left out on purpose: it carries OAuth codes and states.
 * This runs for every request, so the line is built here directly rather than
 * through an object and JSON.stringify, and one listener made here serves every
 * request (the request is found on its response, answer-head.ts's AppResponse).
 * Only the path can hold arbitrary text and is escaped; the request id (validated
 * or generated), the method (Node's parser accepts only known methods) and the
 * address (from the socket, or validated from X-Forwarded-For) cannot hold a quote
 * or a backslash.
 */
export function requestLog(log: Logger, metered: boolean): (request: LoggedRequest) => void {
  const write = log.lineWriter('info', 'request');
  // Under LOG_LEVEL=warn or error the line would be dropped: unless metrics count
  // the request, do not time or watch for it.
  if (write === undefined && !metered) return () => {};
  const logging = write !== undefined;

  // When the answer is done: after it finished, or when the connection ended first
  // (then writableFinished is false). Our servers' responses say so themselves
  // (answer-head.ts's AppResponse.whenDone); another server's response always emits
  // 'close', exactly once, at the same moments.
  function finishLine(res: ServerResponse): void {
    const request = (res as AppResponse).finishing as LoggedRequest;
    const now = performance.now();
    // Hundredths of a millisecond, as an integer: its digits come from small
    // integers (which V8 turns into text from a cache), not from a fraction.
    const hundredths = Math.round((now - request.logStartedAt) * 100);
    const finished = res.writableFinished;
    const status = request.clientErrorStatus ?? (finished || res.headersSent ? res.statusCode : CLIENT_CLOSED_REQUEST);
    request.meter?.observe(status, hundredths / 100);
    if (!logging) return;
    write!(
      '"requestId":"' + request.id + methodAndPath(request.method, request.path) + statusField(status) + decimal(hundredths) +
        bytesField(request.contentLength ?? 0) + ipField(request.logIp) + (finished ? '' : ',"aborted":true'),
      now,
    );
  }
  function onClose(this: ServerResponse): void {
    finishLine(this);
  }

  return (request) => {
    // performance.now() is a plain number; hrtime.bigint() made a BigInt twice a request.
    request.logStartedAt = performance.now();
    // Read now: once the answer is done the socket may be gone.
    request.logIp = logging ? request.ip : '';
    const res = request.res;
    (res as AppResponse).finishing = request;
    if (res instanceof AppResponse) res.whenDone = finishLine;
    else res.on('close', onClose);
  };
}

// Requests in a row often ask for the same path (launchers polling /api/info, a
// page's icons) with the same method, get an answer of the same length, and come
// from the same address: the last of each is kept as the text of its fields, and a
// repeat costs one comparison instead of a few concatenations and a number's text.
let lastMethod = '';
let lastPath = '';
let lastMethodAndPath = '';

/** `","method":"GET","path":"/api/info"`: the fields between the request id and the status, the path cut to MAX_LOGGED_PATH characters. */
function methodAndPath(method: string, path: string): string {
  if (path !== lastPath || method !== lastMethod) {
    lastMethod = method;
    lastPath = path;
    lastMethodAndPath =
      (METHOD_FIELDS.get(method) ?? '","method":"' + method + '","path":') +
      JSON.stringify(path.length > MAX_LOGGED_PATH ? path.slice(0, MAX_LOGGED_PATH) + '…' : path);
  }
  return lastMethodAndPath;
}

/** The fields between the request id and the path, made once for the common methods. */
const METHOD_FIELDS: ReadonlyMap<string, string> = new Map(
  ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].map((method) => [method, `","method":"${method}","path":`]),
);

/** `,"status":200,"ms":` by status, made on first use (Node accepts 100-999 only; anything else is not kept). */
const STATUS_FIELDS: string[] = [];
function statusField(status: number): string {
  const known = STATUS_FIELDS[status];
  if (known !== undefined) return known;
  const field = ',"status":' + status + ',"ms":';
  if (Number.isInteger(status) && status >= 100 && status <= 999) STATUS_FIELDS[status] = field;
  return field;
}

let lastBytes = 0;
let lastBytesField = '';
/** `,"bytes":2786`, or nothing for an answer without a Content-Length (or of none). */
function bytesField(bytes: number): string {
  if (bytes !== lastBytes) {
    lastBytes = bytes;
    lastBytesField = bytes ? ',"bytes":' + bytes : '';
  }
  return lastBytesField;
}

let lastIp = '';
let lastIpField = ',"ip":""';
/** `,"ip":"127.0.0.1"`. */
function ipField(ip: string): string {
  if (ip !== lastIp) {
    lastIp = ip;
    lastIpField = ',"ip":"' + ip + '"';
  }
  return lastIpField;
}

/** `hundredths / 100` as JSON writes that number (1.5, 0.07, 12), from integers only. */
export function decimal(hundredths: number): string {
  const fraction = hundredths % 100;
  const whole = (hundredths - fraction) / 100;
  if (fraction === 0) return '' + whole;
  if (fraction % 10 === 0) return whole + '.' + fraction / 10;
  return whole + (fraction < 10 ? '.0' : '.') + fraction;
}
