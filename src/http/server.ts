import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../lib/log.js';
import { AppResponse } from './answer/head.js';

// Timeouts are deliberate: slow-loris clients must not hold sockets forever, and a
// large upload on a slow link must still fit in requestTimeout.
export const HEADERS_TIMEOUT_MS = 20_000;
export const REQUEST_TIMEOUT_MS = 5 * 60_000;
// Longer than common proxies' idle timeouts would cause resets; shorter than
// headersTimeout as Node requires.
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningServer {
  server: Server;
  url: string;
  port: number;
  /** Stops accepting, lets requests in flight finish (up to the grace period). */
  close(graceMs?: number): Promise<void>;
}

export interface RequestHandler {
  (req: IncomingMessage, res: ServerResponse): unknown;
  /** Answers what Node's parser refuses, in place of Node's bare answers (client-error.ts). */
  clientError?: (error: Error & { code?: string }, socket: Duplex) => void;
  /**
   * For a request with `Expect: 100-continue`: whether it would be accepted. Node
   * answers 100 to every such request by itself, before any check; with this, 100
   * is sent only when it says yes, and otherwise the handler answers at once (its
   * own checks refuse the request) and the body is never invited.
   */
  checkContinue?: (req: IncomingMessage) => boolean;
}

export function listen(handler: RequestHandler, host: string, port: number): Promise<RunningServer> {
  const server = createServer(
    {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      // Node would answer a request without Host itself, bare; app.ts answers it.
      requireHostHeader: !handler.clientError,
      // Responses that write our headers with every head, the same shape for all (answer/head.ts).
      ServerResponse: AppResponse as typeof ServerResponse,
    },
    (req, res) => void handler(req, res),
  );
  server.on('connection', watchConnection);
  if (handler.clientError) server.on('clientError', handler.clientError);
  const accepts = handler.checkContinue;
  if (accepts) {
    server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
      // Refused: no 100; Node then closes the connection after the final answer,
      // since a body the client sends anyway cannot be told from a next request.
      if (accepts(req)) res.writeContinue();
      void handler(req, res);
    });
  }
  server.maxHeadersCount = 100;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        server,
        port: address.port,
        url: `http://${shownHost === '0.0.0.0' ? '127.0.0.1' : shownHost}:${address.port}`,
        close: (graceMs = SHUTDOWN_GRACE_MS) => closeGracefully(server, graceMs),
      });
    });
  });
}

/**
 * A listener for each connection (not each request): when the connection closes
 * with an answer still on it, that answer is done (AppResponse.whenDone, the request
 * log's line with "aborted"). It runs before the 'close' Node emits on the answer:
 * Node's own listener is added when the answer takes the connection, after this one.
 */
function watchConnection(socket: Socket): void {
  socket.on('close', answerOfClosedConnection);
}

function answerOfClosedConnection(this: Socket): void {
  const answer = (this as Socket & { _httpMessage?: unknown })._httpMessage;
  if (answer instanceof AppResponse) answer.done();
}

function closeGracefully(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    // A keep-alive socket whose request finishes after close() began would
    // otherwise sit idle until keepAliveTimeout: sweep idle sockets meanwhile.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    sweep.unref();
    server.close(() => {
      clearTimeout(timer);
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}

// Ctrl-C under `npm start` reaches us twice (from the terminal and forwarded by
// npm): a repeat within this window is the same press, not an impatient user.
const REPEAT_SIGNAL_WINDOW_MS = 1500;

/**
 * SIGTERM / SIGINT / SIGHUP (a closed terminal): run `stop` once, then exit with
 * `exitCode`; a later second signal exits at once. Without this, SIGHUP's default
 * action would end the process without stopping anything it started.
 */
export function onShutdownSignal(log: Logger, stop: () => Promise<void>, exitCode = 0): void {
  let stoppingSince = 0;
  const handler = (signal: NodeJS.Signals) => {
    if (stoppingSince) {
      if (Date.now() - stoppingSince < REPEAT_SIGNAL_WINDOW_MS) return;
      log.warn('second signal, exiting now', { signal });
      process.exit(1);
    }
    stoppingSince = Date.now();
    log.info('shutting down', { signal });
    stop().then(
      () => {
        log.info('stopped');
        process.exit(exitCode);
      },
      (error: unknown) => {
        log.error('shutdown failed', { err: error });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  process.on('SIGHUP', handler);
}
