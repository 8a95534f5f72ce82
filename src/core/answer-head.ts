import { ServerResponse, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';

// The headers every answer carries (X-Request-Id, the security headers) are written
// with the head, in the one writeHead that also carries the answer's own headers,
// rather than set one by one with setHeader when the request arrives. Each
// setHeader validates and copies its header into a per-response table, and once
// that table exists every later writeHead takes Node's slow path, which merges by
// calling setHeader again for each header given: together about 3 µs a request,
// a tenth of what a bare node:http answer costs on the machine this was measured on.
// A head given whole to writeHead, with nothing set before, is validated and
// written in one pass.
//
// So that they can never be left out, they are added by the response's own
// writeHead, which every answer goes through: an explicit res.writeHead (as in
// respond.ts), and the implicit one Node makes for a res.end() or a pipe without it.

/** Headers as writeHead takes them whole: `[name, value, name, value, ...]`. */
export type HeaderList = readonly OutgoingHttpHeader[];

/** What the head of a request's answer needs to know about it. */
export interface AnswerHeadState {
  readonly id: string;
  /** The service's headers for every answer, as a HeaderList (the security headers). */
  readonly answerHeaders: HeaderList;
  /** Set when the head is written: its Content-Length, for the request log. */
  contentLength: number | undefined;
}

const nodeWriteHead = ServerResponse.prototype.writeHead as (
  this: ServerResponse,
  status: number,
  reasonOrHeaders?: string | OutgoingHttpHeader[],
  headers?: OutgoingHttpHeader[],
) => ServerResponse;

/** Makes `res` write X-Request-Id and `state.answerHeaders` in front of every head it writes. */
export function prependAnswerHeaders(res: ServerResponse, state: AnswerHeadState): void {
  res.writeHead = function writeHead(
    status: number,
    reasonOrHeaders?: string | OutgoingHttpHeaders | HeaderList,
    maybeHeaders?: OutgoingHttpHeaders | HeaderList,
  ): ServerResponse {
    const reason = typeof reasonOrHeaders === 'string' ? reasonOrHeaders : undefined;
    const own = typeof reasonOrHeaders === 'string' ? maybeHeaders : reasonOrHeaders;
    // Spread: V8 copies an array, frozen or not, by spread in one go, where slice()
    // of a frozen one takes a generic path tens of times slower (Node 20).
    let head: OutgoingHttpHeader[];
    let length: OutgoingHttpHeader | undefined;
    if (isHeaderList(own)) {
      head = ['X-Request-Id', state.id, ...state.answerHeaders, ...own];
      for (let i = 0; i < own.length; i += 2) {
        if (isContentLength(own[i]!)) length = own[i + 1];
      }
    } else {
      head = ['X-Request-Id', state.id, ...state.answerHeaders];
      for (const name in own) {
        const value = own[name];
        if (value === undefined) continue;
        if (isContentLength(name)) length = value;
        head.push(name, value);
      }
    }
    // A handler that set its Content-Length with setHeader has it in the table.
    length ??= res.getHeader(CONTENT_LENGTH);
    state.contentLength = length === undefined ? undefined : Number(length);
    return reason === undefined ? nodeWriteHead.call(res, status, head) : nodeWriteHead.call(res, status, reason, head);
  } as ServerResponse['writeHead'];
}

export function isHeaderList(headers: OutgoingHttpHeaders | HeaderList | undefined): headers is HeaderList {
  return Array.isArray(headers);
}

const CONTENT_LENGTH = 'content-length';

/** The length test first: it rules out almost every other header without lowering its case. */
function isContentLength(name: OutgoingHttpHeader): boolean {
  return typeof name === 'string' && name.length === CONTENT_LENGTH.length && name.toLowerCase() === CONTENT_LENGTH;
}
