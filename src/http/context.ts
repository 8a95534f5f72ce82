import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../lib/log.js';

/**
 * What a handler gets. `locals` is where a service's middleware leaves what it
 * resolved for the request (the site puts the session user there).
 */
export interface Context<L extends object = Record<string, unknown>> {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly id: string;
  readonly method: string;
  /** The path as received, still percent-encoded, without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Decoded route parameters (a static route's are one shared, frozen, empty object). */
  readonly params: Readonly<Record<string, string>>;
  /** Client address (X-Forwarded-For only when TRUST_PROXY is on). */
  readonly ip: string;
  readonly log: Logger;
  /** The service's logger without request fields (the request log adds its own). */
  readonly serviceLog: Logger;
  /** Parsed JSON body, set by the jsonBody middleware. */
  body: unknown;
  locals: L;
  /** The Content-Length the answer's head declared, once it is written (for the request log). */
  readonly contentLength: number | undefined;
}

export type Handler<L extends object = Record<string, unknown>> = (ctx: Context<L>) => unknown;
export type Next = () => Promise<void>;
export type Middleware<L extends object = Record<string, unknown>> = ((ctx: Context<L>, next: Next) => unknown) & {
  /**
   * The methods whose requests this middleware acts on (upper case), when it passes
   * every other request straight to `next`: a route of another method is composed
   * without it (app.ts), so a launcher's GET does not walk a step that does nothing.
   * It must still pass those requests on by itself: requests no route takes run it.
   */
  readonly onlyFor?: ReadonlySet<string>;
};

export interface Route<L extends object = Record<string, unknown>> {
  method: string;
  path: string;
  /** Middleware run for this route only, in order, before the handler. */
  use?: Middleware<L>[];
  handler: Handler<L>;
}
