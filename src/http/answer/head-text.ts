import { ServerResponse, validateHeaderName, validateHeaderValue, type IncomingMessage, type OutgoingHttpHeader } from 'node:http';

// Node writes a head by taking each header in turn: it checks the name and the
// value (two regular expressions), lowers the case of most names to look for the
// few it must act on (Connection, Content-Length, ...), and appends `name: value`.
// For the nine headers of /api/info's answer that is about 1.5 µs, a tenth of what
// a plain node:http answer costs in all, and every request pays it again for the
// same headers with the same values. A head prepared once (head.ts's
// templates) is checked once, by the same functions Node uses (validateHeaderName
// and validateHeaderValue), and kept as its text; each request joins its own
// X-Request-Id line to that text.
//
// The text goes to Node as the end of the status line: Node's _storeHeader(line,
// headers) starts the head with the line it is given, as it is, then adds the
// headers it is given (here only Content-Length, which it must see to know the
// body's length) and everything it decides itself: Date, Connection and
// Keep-Alive. So the keep-alive rules and the Date stay Node's. A text never holds
// a header Node acts on (renderLines leaves those to Node), so leaving it unseen
// changes nothing.
//
// _storeHeader is not documented. It has had this form since Node's first
// releases and has it in Node 20, 22 and 24; a check when head.ts loads
// (headsAsTextWork) writes a head both ways and compares, and on any difference
// (or a Node without it) every head is written the documented way.

/** Headers Node reads as it writes a head (its matchHeader), and Content-Disposition, whose value it re-encodes. */
const ACTED_ON = new Set(['connection', 'transfer-encoding', 'content-length', 'date', 'expect', 'trailer', 'keep-alive', 'content-disposition']);

/**
 * `name: value\r\n` lines of `list`, each checked as Node checks it; undefined when
 * one would not be written as it stands (an array value, a header Node acts on) or
 * fails Node's check (writeHead then refuses it as it always did).
 */
export function renderLines(list: readonly OutgoingHttpHeader[]): string | undefined {
  let text = '';
  for (let i = 0; i < list.length; i += 2) {
    const name = list[i];
    const value = list[i + 1];
    if (typeof name !== 'string' || (typeof value !== 'string' && typeof value !== 'number')) return undefined;
    if (ACTED_ON.has(name.toLowerCase())) return undefined;
    try {
      validateHeaderName(name);
      validateHeaderValue(name, String(value));
    } catch {
      return undefined;
    }
    text += name + ': ' + value + '\r\n';
  }
  return text;
}

/** A head given to writeHead as text made before, and the headers Node must still see. */
export class RenderedHead {
  constructor(
    readonly lines: string,
    readonly rest: readonly OutgoingHttpHeader[],
  ) {}
}

type StoreHeader = (this: ServerResponse, firstLine: string, headers: unknown) => void;
const nodeStoreHeader = (ServerResponse.prototype as unknown as { _storeHeader?: StoreHeader })._storeHeader;

/** What a response's _storeHeader does with a RenderedHead: the text after the status line, the rest as Node takes headers. */
export function storeHeader(res: ServerResponse, firstLine: string, headers: unknown): void {
  if (headers instanceof RenderedHead) nodeStoreHeader!.call(res, firstLine + headers.lines, headers.rest);
  else nodeStoreHeader!.call(res, firstLine, headers);
}

/**
 * Node's table of headers set one by one (setHeader), found on the first response
 * checked (headsAsTextWork). When it exists, writeHead merges what it is given into
 * it, header by header: a RenderedHead must then not be given (head.ts takes
 * the list's way).
 */
let outHeaders: symbol | undefined;

/** Whether nothing was set on `res` with setHeader (or appendHeader): its head can be given as a RenderedHead. */
export function noHeaderTable(res: ServerResponse): boolean {
  return (res as unknown as Record<symbol, unknown>)[outHeaders!] === null;
}

/**
 * Whether heads can be written from text on this Node: true when a head written
 * from text is, byte for byte, the head Node writes from the same headers.
 * `respond` makes a response whose _storeHeader is storeHeader (head.ts's
 * AppResponse: the check uses the class that serves, so Node's code sees no
 * other kind of response than it will under load).
 */
export function headsAsTextWork(respond: (req: IncomingMessage) => ServerResponse): boolean {
  if (typeof nodeStoreHeader !== 'function') return false;
  const request = { method: 'GET', httpVersionMajor: 1, httpVersionMinor: 1, headers: {} } as IncomingMessage;
  const head = ['X-Request-Id', 'check-1', 'X-Frame-Options', 'DENY', 'Content-Type', 'application/json; charset=utf-8'];
  const heads: string[] = [];
  for (const rendered of [false, true]) {
    const res = respond(request);
    outHeaders ??= Object.getOwnPropertySymbols(res).find((symbol) => symbol.description === 'kOutHeaders');
    if (outHeaders === undefined || !noHeaderTable(res)) return false;
    res.shouldKeepAlive = true;
    if (rendered) res.writeHead(200, new RenderedHead(renderLines(head)!, ['Content-Length', 2]) as never);
    else res.writeHead(200, [...head, 'Content-Length', 2]);
    // The Date line may differ by a second between the two.
    heads.push((res as unknown as { _header: string })._header.replace(/\r\nDate: [^\r]*/, ''));
  }
  return heads[0] === heads[1] && heads[0]!.includes('\r\nContent-Length: 2\r\nConnection: keep-alive\r\n');
}
