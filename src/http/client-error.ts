import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { answerStateOf, type AnswerHeaders } from './answer/head.js';
import { addressKey } from './client-ip.js';
import { HttpError } from './errors.js';
import type { Logger } from '../lib/log.js';
import { nextRequestId } from './request-id.js';

// Node answers some requests itself, before (or instead of) any handler: one its
// parser refuses (400), headers over its limit (431), a request not complete in
// time (408). Its own answers carry nothing of ours. As the server's 'clientError'
// listener this writes them instead, with a request id, the security headers and
// the service's error body, and logs one line, under the same rules Node follows:
// never on a socket that can no longer be written, never after an answer on it has
// begun (the bytes would corrupt it), and the connection is closed after.

/** How a service writes an HttpError as a body (the site and the image host differ). */
export interface RenderedError {
  contentType: string;
  body: string;
}

export interface ClientErrorOptions {
  log: Logger;
  answerHeaders: AnswerHeaders;
  renderError: (error: HttpError) => RenderedError;
}

type ClientError = Error & { code?: string };

/** A 'clientError' listener for an http.Server. */
export function createClientErrorHandler(options: ClientErrorOptions): (error: ClientError, socket: Duplex) => void {
  const { log } = options;
  return (error, socket) => {
    // The response in progress on this connection, if any: its request gets the
    // answer's status in its own log line, rather than a second line.
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
    const state = inFlight === undefined ? undefined : answerStateOf(inFlight);
    if (!socket.writable || socket.destroyed || inFlight?.headersSent || error.code === 'ECONNRESET') {
      // The client is gone, or an answer has begun: nothing can be said any more.
      socket.destroy();
      log.debug('connection error', { code: error.code });
      return;
    }
    const refusal = refusalFor(error);
    const id = state?.id ?? nextRequestId();
    socket.write(rawAnswer(refusal, id, options));
    socket.destroy();
    if (state) state.clientErrorStatus = refusal.status;
    // The peer's address: X-Forwarded-For, if any, was never parsed.
    else log.info('client error', { requestId: id, status: refusal.status, code: error.code, ip: addressKey((socket as Socket).remoteAddress) ?? 'unknown' });
  };
}

function refusalFor(error: ClientError): HttpError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new HttpError(431, 'BAD_REQUEST', 'Request header fields are too large');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new HttpError(413, 'PAYLOAD_TOO_LARGE', 'Chunk extensions are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new HttpError(408, 'BAD_REQUEST', 'Request was not complete in time');
    default:
      return new HttpError(400, 'BAD_REQUEST', 'Malformed request');
  }
}

/** The whole answer as bytes: there is no ServerResponse for a request Node could not parse. */
function rawAnswer(refusal: HttpError, id: string, options: ClientErrorOptions): string {
  const { contentType, body } = options.renderError(refusal);
  const lines = [`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}`, 'Connection: close', `X-Request-Id: ${id}`];
  const ours = options.answerHeaders.list;
  for (let i = 0; i < ours.length; i += 2) lines.push(`${String(ours[i])}: ${String(ours[i + 1])}`);
  lines.push('Cache-Control: no-store', `Content-Type: ${contentType}`, `Content-Length: ${Buffer.byteLength(body)}`);
  return lines.join('\r\n') + '\r\n\r\n' + body;
}
