import type { ServerResponse } from 'node:http';
import type { Logger } from '../lib/log.js';
import { AppResponse } from './answer/head.js';
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
 * This runs for every request, so the line is written here directly, as bytes,
 * rather than through an object and JSON.stringify, and one function made here
 * serves every request (the request is found on its response, answer/head.ts's
 * AppResponse). Only the path can hold arbitrary text and is escaped; the request
 * id (validated or generated), the method (Node's parser accepts only known
 * methods) and the address (from the socket, or validated from X-Forwarded-For)
 * cannot hold a quote or a backslash.
 */
export function requestLog(log: Logger, metered: boolean): (request: LoggedRequest) => void {
  const write = log.lineWriter('info', 'request');
  // Under LOG_LEVEL=warn or error the line would be dropped: unless metrics count
  // the request, do not time or watch for it.
  if (write === undefined && !metered) return () => {};
  const logging = write !== undefined;

  // When the answer is done: after it finished, or when the connection ended first
  // (then writableFinished is false). Our servers' responses say so themselves
  // (answer/head.ts's AppResponse.whenDone); another server's response always emits
  // 'close', exactly once, at the same moments.
  function finishLine(res: ServerResponse): void {
    const request = (res as AppResponse).finishing as LoggedRequest;
    const now = performance.now();
    // Hundredths of a millisecond, as an integer: its digits are written from it
    // one by one (writeDecimal), not from a fraction's text.
    const hundredths = Math.round((now - request.logStartedAt) * 100);
    const finished = res.writableFinished;
    const status = request.clientErrorStatus ?? (finished || res.headersSent ? res.statusCode : CLIENT_CLOSED_REQUEST);
    request.meter?.observe(status, hundredths / 100);
    if (!logging) return;
    line.id = request.id;
    line.middle = middleBytes(request.method, request.path, status);
    line.hundredths = hundredths;
    line.end = endBytes(request.contentLength ?? 0, request.logIp, finished);
    write!(fillRequestLine, line, REQUEST_ID_KEY.length + line.id.length + line.middle.length + MAX_DECIMAL_BYTES + line.end.length, now);
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

// The line is written as bytes (lib/log.ts's LineWriter): the request id, then the
// fields up to the duration, its digits, and the fields after it. Requests in a row
// often ask for the same path (launchers polling /api/info, a page's icons) with the
// same method and status, get an answer of the same length, and come from the same
// address: the bytes of the last fields before and after the duration are kept, and
// a repeat costs a few comparisons and two copies.

/** What the line of the request being logged is made of (one at a time: lines are written as answers finish). */
interface RequestLine {
  /** Letters, digits, `.`, `_` and `-` only (request-id.ts): written byte for byte. */
  id: string;
  middle: Buffer;
  hundredths: number;
  end: Buffer;
}
const line: RequestLine = { id: '', middle: Buffer.alloc(0), hundredths: 0, end: Buffer.alloc(0) };

const REQUEST_ID_KEY = Buffer.from('"requestId":"');
/** The most digits of a duration in hundredths of a millisecond (past 2^53 they would not be exact anyway), and its point. */
const MAX_DECIMAL_BYTES = 18;

function fillRequestLine(target: Buffer, at: number, values: RequestLine): number {
  target.set(REQUEST_ID_KEY, at);
  at += REQUEST_ID_KEY.length;
  const id = values.id;
  for (let i = 0; i < id.length; i++) target[at++] = id.charCodeAt(i);
  target.set(values.middle, at);
  at = writeDecimal(target, at + values.middle.length, values.hundredths);
  target.set(values.end, at);
  return at + values.end.length;
}

let lastMethod = '';
let lastPath = '';
let lastStatus = 0;
let lastMiddle = Buffer.alloc(0);

/** `","method":"GET","path":"/api/info","status":200,"ms":`, the path cut to MAX_LOGGED_PATH characters. */
function middleBytes(method: string, path: string, status: number): Buffer {
  if (path !== lastPath || method !== lastMethod || status !== lastStatus) {
    lastMethod = method;
    lastPath = path;
    lastStatus = status;
    // The method is one Node's parser knows (letters only).
    const shownPath = JSON.stringify(path.length > MAX_LOGGED_PATH ? path.slice(0, MAX_LOGGED_PATH) + '…' : path);
    lastMiddle = Buffer.from(`","method":"${method}","path":${shownPath},"status":${status},"ms":`);
  }
  return lastMiddle;
}

let lastBytes = 0;
let lastIp = '';
let lastFinished = true;
let lastEnd = Buffer.from(',"ip":""}\n');

/** `,"bytes":2786,"ip":"127.0.0.1"}` and the line's end (no bytes for an answer without a Content-Length or of none). */
function endBytes(bytes: number, ip: string, finished: boolean): Buffer {
  if (bytes !== lastBytes || ip !== lastIp || finished !== lastFinished) {
    lastBytes = bytes;
    lastIp = ip;
    lastFinished = finished;
    // The address is from the socket, or validated from X-Forwarded-For: no quote or backslash.
    lastEnd = Buffer.from((bytes ? ',"bytes":' + bytes : '') + ',"ip":"' + ip + '"' + (finished ? '' : ',"aborted":true') + '}\n');
  }
  return lastEnd;
}

const ZERO = 48;
const POINT = 46;

/**
 * `hundredths / 100` as JSON writes that number (1.5, 0.07, 12), as ASCII digits
 * into `target` from `at`; returns where it ended. `hundredths` is a whole number, at least 0.
 */
export function writeDecimal(target: Buffer, at: number, hundredths: number): number {
  const fraction = hundredths % 100;
  let whole = (hundredths - fraction) / 100;
  let digits = 1;
  for (let rest = whole; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  for (let i = at + digits - 1; i >= at; i--) {
    const next = Math.floor(whole / 10);
    target[i] = ZERO + whole - next * 10;
    whole = next;
  }
  at += digits;
  if (fraction === 0) return at;
  target[at++] = POINT;
  const ones = fraction % 10;
  target[at++] = ZERO + (fraction - ones) / 10;
  if (ones !== 0) target[at++] = ZERO + ones;
  return at;
}
