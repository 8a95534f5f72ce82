import { ServerResponse, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';

// Every answer carries X-Request-Id and the service's answer headers (the security
// headers). They are written with the head, in the one writeHead that also carries
// the answer's own headers, rather than set one by one with setHeader when the
// request arrives. Each setHeader validates and copies its header into a
// per-response table, and once that table exists every later writeHead takes
// Node's slow path, which merges by calling setHeader again for each header given:
// together about 3 µs a request, a tenth of what a bare node:http answer costs. A
// head given whole to writeHead, with nothing set before, is validated and written
// in one pass.
//
// So that they can never be left out, they are added by the response's own
// writeHead, which every answer goes through: an explicit res.writeHead (as in
// respond.ts), and the implicit one Node makes for a res.end() or a pipe without it.
//
// The answer's own value wins: a header of ours that the answer names too (in its
// writeHead, or with setHeader before) is left out, so each name is sent once.

/** Headers as writeHead takes them whole: `[name, value, name, value, ...]`. */
export type HeaderList = readonly OutgoingHttpHeader[];

/** What the head of a request's answer needs to know, and what it tells the request log. */
export interface AnswerState {
  readonly id: string;
  /** Set when the head is written: its Content-Length, for the request log. */
  contentLength: number | undefined;
  /** Set when the connection's error handler answered in its place (client-error.ts). */
  clientErrorStatus: number | undefined;
}

const STATE = Symbol('answer state');

/** The state of the answer `res` is writing, when it is one of ours. */
export function answerStateOf(res: ServerResponse): AnswerState | undefined {
  return (res as ServerResponse & { [STATE]?: AnswerState })[STATE];
}

/** A service's headers for every answer, prepared once. */
export interface AnswerHeaders {
  readonly list: HeaderList;
  /** Whether `name` (any case) is X-Request-Id or one of `list`. */
  isOurs(name: OutgoingHttpHeader): boolean;
  /** Lower-case names, X-Request-Id first, in the order of the head. */
  readonly names: readonly string[];
}

export function answerHeaders(list: HeaderList): AnswerHeaders {
  const names = ['x-request-id'];
  for (let i = 0; i < list.length; i += 2) names.push(String(list[i]).toLowerCase());
  const known = new Set(names);
  // Most of an answer's own names differ in length from all of ours: no lower-casing for those.
  const lengths = new Set(names.map((name) => name.length));
  return {
    list: Object.freeze([...list]),
    names,
    isOurs: (name) => typeof name === 'string' && lengths.has(name.length) && known.has(name.toLowerCase()),
  };
}

const nodeWriteHead = ServerResponse.prototype.writeHead as (
  this: ServerResponse,
  status: number,
  reasonOrHeaders?: string | OutgoingHttpHeader[],
  headers?: OutgoingHttpHeader[],
) => ServerResponse;

/** Makes `res` write X-Request-Id and `ours` with every head it writes. */
export function startAnswer(res: ServerResponse, state: AnswerState, ours: AnswerHeaders): void {
  (res as ServerResponse & { [STATE]?: AnswerState })[STATE] = state;
  res.writeHead = function writeHead(
    status: number,
    reasonOrHeaders?: string | OutgoingHttpHeaders | HeaderList,
    maybeHeaders?: OutgoingHttpHeaders | HeaderList,
  ): ServerResponse {
    const reason = typeof reasonOrHeaders === 'string' ? reasonOrHeaders : undefined;
    const own = typeof reasonOrHeaders === 'string' ? maybeHeaders : reasonOrHeaders;
    // Spread: V8 copies an array, frozen or not, by spread in one go, where slice()
    // of a frozen one takes a generic path tens of times slower (Node 20).
    let head: OutgoingHttpHeader[] = ['X-Request-Id', state.id, ...ours.list];
    const oursEnd = head.length;
    let named = false;
    let length: OutgoingHttpHeader | undefined;
    const add = (name: OutgoingHttpHeader, value: OutgoingHttpHeader | undefined) => {
      if (value === undefined) return;
      if (isContentLength(name)) length = value;
      else if (ours.isOurs(name)) named = true;
      head.push(name, value);
    };
    if (isHeaderList(own)) {
      for (let i = 0; i < own.length; i += 2) add(own[i]!, own[i + 1]);
    } else {
      for (const name in own) add(name, own[name]);
    }
    if (named || setBefore(res, ours.names)) head = ownWins(head, oursEnd, res);
    // A handler that set its Content-Length with setHeader has it in the table.
    length ??= res.getHeader(CONTENT_LENGTH);
    state.contentLength = length === undefined ? undefined : Number(length);
    return reason === undefined ? nodeWriteHead.call(res, status, head) : nodeWriteHead.call(res, status, reason, head);
  } as ServerResponse['writeHead'];
}

/** Whether a handler set one of our headers with setHeader. */
function setBefore(res: ServerResponse, names: readonly string[]): boolean {
  for (const name of names) if (res.hasHeader(name)) return true;
  return false;
}

/** `head` without those of its first `oursEnd` entries that the rest of it, or the table, names too. */
function ownWins(head: OutgoingHttpHeader[], oursEnd: number, res: ServerResponse): OutgoingHttpHeader[] {
  const named = new Set<string>();
  for (let i = oursEnd; i < head.length; i += 2) named.add(String(head[i]).toLowerCase());
  const merged: OutgoingHttpHeader[] = [];
  for (let i = 0; i < oursEnd; i += 2) {
    const name = String(head[i]).toLowerCase();
    if (!named.has(name) && !res.hasHeader(name)) merged.push(head[i]!, head[i + 1]!);
  }
  for (let i = oursEnd; i < head.length; i++) merged.push(head[i]!);
  return merged;
}

export function isHeaderList(headers: OutgoingHttpHeaders | HeaderList | undefined): headers is HeaderList {
  return Array.isArray(headers);
}

const CONTENT_LENGTH = 'content-length';

/** The length test first: it rules out almost every other header without lowering its case. */
function isContentLength(name: OutgoingHttpHeader): boolean {
  return typeof name === 'string' && name.length === CONTENT_LENGTH.length && name.toLowerCase() === CONTENT_LENGTH;
}
