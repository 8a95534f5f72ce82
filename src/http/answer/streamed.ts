import type { OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { isClientGone } from '../client-gone.js';
import type { Context } from '../context.js';
import type { ExtraHeaders } from './send.js';

// An answer whose bytes are read as they are sent: a file or a bucket object (the
// image host's images and packages), an image held from another server (the site's
// image proxy). Its head is written whole, Content-Length among it, before the
// first byte; the bytes follow with backpressure. What a client must never see is
// a short body that looks whole: a body that fails halfway cuts the connection.

/**
 * What follows the head: a stream, piped to the answer (without pipeline()'s extra
 * listeners), or a writer that writes the bytes and ends the answer itself,
 * settling when it is done or cut (a file range sent from a pool of buffers, chunks
 * held in memory).
 */
export type StreamedBody = Readable | ((res: ServerResponse) => Promise<void>);

/**
 * The one way to send a streamed answer: `status` and `head` (Content-Length
 * included), then `body`. A HEAD request, or no body, gets the head alone (a stream
 * given is destroyed unread). Settles when the answer is done or cut. A client that
 * leaves destroys the stream (a file stream closes its descriptor); a stream that
 * fails cuts the answer and is logged as `failure` (a client gone is not worth a
 * line); a writer logs its own.
 */
export function sendStreamed(ctx: Context<any>, status: number, head: ExtraHeaders, body?: StreamedBody, failure = 'stream failed'): Promise<void> {
  const res = ctx.res;
  if (res.headersSent) {
    if (body !== undefined && typeof body !== 'function') body.destroy();
    return Promise.resolve();
  }
  // A readonly list is only read: writeHead copies what it is given.
  res.writeHead(status, head as OutgoingHttpHeaders | OutgoingHttpHeader[]);
  if (body === undefined || ctx.method === 'HEAD') {
    if (body !== undefined && typeof body !== 'function') body.destroy();
    res.end();
    return Promise.resolve();
  }
  if (typeof body === 'function') return body(res);
  return pipeTo(ctx, body, failure);
}

function pipeTo(ctx: Context<any>, stream: Readable, failure: string): Promise<void> {
  const res = ctx.res;
  return new Promise((resolve) => {
    // Cut already: 'close' will not come again, and a pipe would wait for a 'drain' forever.
    if (res.destroyed) {
      stream.destroy();
      resolve();
      return;
    }
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (!isClientGone(error)) ctx.log.warn(failure, { err: error });
      res.destroy(error);
    });
    // A client that leaves early: stop reading (and close the file).
    res.once('close', () => {
      if (!stream.destroyed) stream.destroy();
      resolve();
    });
    stream.pipe(res);
  });
}
