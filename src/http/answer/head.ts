import { ServerResponse, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { headsAsTextWork, noHeaderTable, RenderedHead, renderLines, storeHeader } from './head-text.js';

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
// writeHead (AppResponse), which every answer goes through: an explicit
// res.writeHead, and the implicit one Node makes for a res.end() or a pipe without
// it. An answer with a body and headers prepared once (send.ts's sendBody with
// a frozen list) writes the same head in one step (writeBodyHead).
//
// The answer's own value wins: a header of ours that the answer names too (in its
// writeHead, or with setHeader before) is left out, so each name is sent once.
//
// A prepared head is also kept as its text, checked once (head-text.ts): Node
// then checks and writes only the request's Content-Length, not every header again.

/** Headers as writeHead takes them whole: `[name, value, name, value, ...]`. */
export type HeaderList = readonly OutgoingHttpHeader[];

/** What the head of a request's answer needs to know, and what it tells the request log. */
export interface AnswerState {
  /** The request id: letters, digits, `.`, `_` and `-` only (../request-id.ts), so it is written unchecked in a prepared head's text. */
  readonly id: string;
  /** Set when the head is written: its Content-Length, for the request log. */
  contentLength: number | undefined;
  /** Set when the connection's error handler answered in its place (../client-error.ts). */
  clientErrorStatus: number | undefined;
}

/**
 * The responses of our servers (listen() in ../server.ts gives it to createServer):
 * a ServerResponse whose writeHead adds X-Request-Id and the service's answer
 * headers. Its fields are there from construction, so every response has the same
 * shape and nothing is added to it per request; a response of another server gets
 * the same writeHead and fields set on it by startAnswer.
 */
export class AppResponse extends ServerResponse {
  /** The request this answers (set by startAnswer); a response without one writes its head as Node does. */
  answerState: AnswerState | undefined = undefined;
  answerHeaders: AnswerHeaders | undefined = undefined;
  /** Whatever the app keeps for when the answer is done (the request log's request). */
  finishing: unknown = undefined;
  /**
   * Called once when the answer is done: when it has finished (Node detaches it
   * from its connection), or when its connection closed first (../server.ts's
   * watchConnection). The request log's line is written here rather than by a
   * 'close' listener added to every response: in a profile of /api/info under load
   * the listener and its dispatch through emit() were about a µs of a request (26 Nov
   * 2026); served at the same time as the listener's build, the difference was within
   * that measure's spread (1-3%).
   */
  whenDone: ((res: AppResponse) => void) | undefined = undefined;

  override detachSocket(socket: Socket): void {
    super.detachSocket(socket);
    this.done();
  }

  /** Runs whenDone, once. */
  done(): void {
    const whenDone = this.whenDone;
    if (whenDone === undefined) return;
    this.whenDone = undefined;
    whenDone(this);
  }

  /** Node's, taking a RenderedHead as well (head-text.ts), which is only given once RENDERED_HEADS says it works. */
  _storeHeader(firstLine: string, headers: unknown): void {
    storeHeader(this, firstLine, headers);
  }

  override writeHead(
    status: number,
    reasonOrHeaders?: string | OutgoingHttpHeaders | HeaderList,
    maybeHeaders?: OutgoingHttpHeaders | HeaderList,
  ): this {
    return writeOurHead(this, status, reasonOrHeaders, maybeHeaders) as this;
  }
}

/** The state of the answer `res` is writing, when it is one of ours. */
export function answerStateOf(res: ServerResponse): AnswerState | undefined {
  return (res as AppResponse).answerState;
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
  const own = res as AppResponse;
  own.answerState = state;
  own.answerHeaders = ours;
  // Another server's response: the same method, set on it (no function made per request).
  if (!(res instanceof AppResponse)) res.writeHead = AppResponse.prototype.writeHead as ServerResponse['writeHead'];
}

function writeOurHead(
  res: AppResponse,
  status: number,
  reasonOrHeaders?: string | OutgoingHttpHeaders | HeaderList,
  maybeHeaders?: OutgoingHttpHeaders | HeaderList,
): ServerResponse {
  const state = res.answerState;
  const ours = res.answerHeaders;
  if (state === undefined || ours === undefined) {
    return nodeWriteHead.call(res, status, reasonOrHeaders as string, maybeHeaders as OutgoingHttpHeader[]);
  }
  const reason = typeof reasonOrHeaders === 'string' ? reasonOrHeaders : undefined;
  const own = typeof reasonOrHeaders === 'string' ? maybeHeaders : reasonOrHeaders;
  // Spread: V8 copies an array, frozen or not, by spread in one go, where slice()
  // of a frozen one takes a generic path tens of times slower (Node 20).
  let head: OutgoingHttpHeader[] = ['X-Request-Id', state.id, ...ours.list];
  const oursEnd = head.length;
  let named = false;
  let length: OutgoingHttpHeader | undefined;
  if (isHeaderList(own)) {
    for (let i = 0; i < own.length; i += 2) {
      const name = own[i]!;
      const value = own[i + 1];
      if (value === undefined) continue;
      if (isContentLength(name)) length = value;
      else if (ours.isOurs(name)) named = true;
      head.push(name, value);
    }
  } else {
    for (const name in own) {
      const value = own[name];
      if (value === undefined) continue;
      if (isContentLength(name)) length = value;
      else if (ours.isOurs(name)) named = true;
      head.push(name, value);
    }
  }
  if (named || setBefore(res, ours.names)) head = ownWins(head, oursEnd, res);
  // A handler that set its Content-Length with setHeader has it in the table.
  length ??= res.getHeader(CONTENT_LENGTH);
  state.contentLength = length === undefined ? undefined : Number(length);
  return reason === undefined ? nodeWriteHead.call(res, status, head) : nodeWriteHead.call(res, status, reason, head);
}

/**
 * The head of an answer with a body of `length` bytes of `contentType`, and `own`
 * headers prepared once (a frozen list: the same object on every request), written
 * in one step: when `own` names neither one of ours nor Content-Length, and nothing
 * was set before with setHeader, the whole head is made once per list and content
 * type (headTemplate), and each request joins its X-Request-Id line to the head's
 * text and gives Node its Content-Length (head-text.ts), or, on a Node where
 * heads are not taken as text or once a header was set with setHeader, copies the
 * head's list and fills in its request id and length: no header looked at one by
 * one, no lists spread together. Anything else takes writeHead's way.
 */
export function writeBodyHead(res: ServerResponse, status: number, own: HeaderList, contentType: string, length: number): ServerResponse {
  const state = (res as AppResponse).answerState;
  const ours = (res as AppResponse).answerHeaders;
  const template = state === undefined || ours === undefined ? undefined : headTemplate(own, ours, contentType);
  if (template !== undefined) {
    if (template.lines !== undefined && res instanceof AppResponse && noHeaderTable(res)) {
      state!.contentLength = length;
      return nodeWriteHead.call(res, status, new RenderedHead(idLine(state!.id) + template.lines, ['Content-Length', length]) as never);
    }
    if (!setBefore(res, ours!.names)) {
      state!.contentLength = length;
      // slice() of a plain (not frozen) array is one copy.
      const head = template.list.slice();
      head[1] = state!.id;
      head[head.length - 1] = length;
      return nodeWriteHead.call(res, status, head);
    }
  }
  return res.writeHead(status, [...own, 'Content-Type', contentType, 'Content-Length', length]);
}

/**
 * The head of an answer without a body (a 304 of a prepared answer, whose own
 * headers are its ETag and Cache-Control), with `own` headers prepared once (a
 * frozen list), written in one step like writeBodyHead's. Anything else takes
 * writeHead's way.
 */
export function writeEmptyHead(res: ServerResponse, status: number, own: HeaderList): ServerResponse {
  const state = (res as AppResponse).answerState;
  const ours = (res as AppResponse).answerHeaders;
  const known = state === undefined || ours === undefined ? undefined : listHeadsOf(own, ours);
  if (known !== undefined && known.byType !== null) {
    const template = (known.bodiless ??= makeTemplate(['X-Request-Id', '', ...ours!.list, ...own]));
    if (template.lines !== undefined && res instanceof AppResponse && noHeaderTable(res)) {
      state!.contentLength = undefined;
      return nodeWriteHead.call(res, status, new RenderedHead(idLine(state!.id) + template.lines, NO_MORE_HEADERS) as never);
    }
    if (!setBefore(res, ours!.names)) {
      state!.contentLength = undefined;
      const head = template.list.slice();
      head[1] = state!.id;
      return nodeWriteHead.call(res, status, head);
    }
  }
  return res.writeHead(status, own as OutgoingHttpHeader[]);
}

const NO_MORE_HEADERS: HeaderList = Object.freeze([]);

/** `X-Request-Id: <id>\r\n`: the line each request adds to a prepared head's text. */
function idLine(id: string): string {
  return 'X-Request-Id: ' + id + '\r\n';
}

/**
 * A prepared head: as a list `[X-Request-Id, <id>, ...]` whose id (and length, when
 * it ends with Content-Length) each request fills in, and as the text of all its
 * lines but those two (head-text.ts), when this Node takes heads as text.
 */
interface HeadTemplate {
  readonly list: OutgoingHttpHeader[];
  readonly lines: string | undefined;
}

function makeTemplate(list: OutgoingHttpHeader[]): HeadTemplate {
  const end = isContentLength(list[list.length - 2]!) ? list.length - 2 : list.length;
  return { list, lines: RENDERED_HEADS ? renderLines(list.slice(2, end)) : undefined };
}

/**
 * Per frozen list, the service's headers it was checked against, its heads by
 * content type: `[X-Request-Id, <id>, ...ours, ...own, Content-Type, type,
 * Content-Length, <length>]`, and its head without a body (made on first use). A
 * list that names one of ours, Content-Length or Content-Type has none (null).
 */
interface ListHeads {
  readonly ours: AnswerHeaders;
  readonly byType: Map<string, HeadTemplate> | null;
  bodiless: HeadTemplate | undefined;
}
/**
 * By frozen list, what is known of it against each service's headers: one entry in
 * a service's process, two when `npm start` runs the site and the image host in one
 * process and both send a shared list (an empty one).
 */
const listHeads = new WeakMap<HeaderList, ListHeads[]>();
/** Content types remembered per list: a list is sent with one or a few (the static files' table at most). */
const MAX_TYPES_PER_LIST = 64;

/** What is known of a frozen list against a service's headers; undefined for a list that may still change. */
function listHeadsOf(own: HeaderList, ours: AnswerHeaders): ListHeads | undefined {
  const known = listHeads.get(own);
  if (known !== undefined) {
    for (const each of known) if (each.ours === ours) return each;
  }
  // Only a list that can no longer change may be remembered.
  if (!Object.isFrozen(own)) return undefined;
  const made: ListHeads = { ours, byType: isClean(own, ours) ? new Map() : null, bodiless: undefined };
  if (known === undefined) listHeads.set(own, [made]);
  else known.push(made);
  return made;
}

function headTemplate(own: HeaderList, ours: AnswerHeaders, contentType: string): HeadTemplate | undefined {
  const known = listHeadsOf(own, ours);
  if (known === undefined || known.byType === null) return undefined;
  let head = known.byType.get(contentType);
  if (head === undefined) {
    head = makeTemplate(['X-Request-Id', '', ...ours.list, ...own, 'Content-Type', contentType, 'Content-Length', 0]);
    if (known.byType.size < MAX_TYPES_PER_LIST) known.byType.set(contentType, head);
  }
  return head;
}

/** Whether a frozen list names none of a service's headers nor Content-Length (or Content-Type). */
function isClean(own: HeaderList, ours: AnswerHeaders): boolean {
  for (let i = 0; i < own.length; i += 2) {
    const name = own[i]!;
    if (own[i + 1] === undefined || ours.isOurs(name) || isContentLength(name) || String(name).toLowerCase() === 'content-type') return false;
  }
  return true;
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

/** Whether this Node takes prepared heads as text (head-text.ts): checked once, with our responses (last: it writes heads with what is above). */
export const RENDERED_HEADS = headsAsTextWork((req) => new AppResponse(req));
