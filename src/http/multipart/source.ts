// One way to pull chunks from either a Readable (the request) or any async iterable.
//
// A Readable is read with 'data' + pause()/resume() rather than its async iterator:
// the iterator destroys the stream when we stop early (and a destroyed request
// cannot be answered with a 413), and read() concatenates buffered chunks (a copy).
// When we close, the Readable is left paused and still owned by the caller, who
// should resume() it to discard the rest or destroy() it.

import type { Readable } from 'node:stream';
import { HttpError } from '../errors.js';

export interface ChunkSource {
  /** The next chunk, or null at the end (or once closed). Rejects with an HttpError. */
  pull(): Promise<Buffer | null>;
  /** Stops reading. Wakes a pending pull() with null. */
  close(): void;
}

export function openSource(source: AsyncIterable<Uint8Array> | Readable): ChunkSource {
  return isReadable(source) ? fromReadable(source) : fromIterable(source);
}

function isReadable(source: AsyncIterable<Uint8Array> | Readable): source is Readable {
  const candidate = source as Partial<Readable>;
  return typeof candidate.on === 'function' && typeof candidate.pause === 'function' && typeof candidate.resume === 'function';
}

/**
 * The source failing is not a malformed body, but with a request it means the
 * client went away or broke the connection, so it is still the client's doing.
 * An HttpError from a wrapping stream (say a body-size limiter) passes through.
 */
function sourceFailed(cause: unknown): HttpError {
  if (cause instanceof HttpError) return cause;
  return new HttpError(400, 'BAD_REQUEST', 'Request body could not be read', { cause });
}

function toBuffer(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  // A string means someone called setEncoding() on the request: a bug, not a client error.
  throw new TypeError('Multipart source must yield bytes; do not call setEncoding() on it');
}

function fromReadable(stream: Readable): ChunkSource {
  const queue: Buffer[] = [];
  let ended = stream.readableEnded;
  let failure: unknown = stream.errored ?? (stream.destroyed && !ended ? new Error('Stream was destroyed') : undefined);
  let misuse: TypeError | undefined;
  let closed = false;
  let wake: (() => void) | null = null;

  const signal = () => {
    const resolve = wake;
    wake = null;
    resolve?.();
  };
  const onData = (chunk: unknown) => {
    try {
      queue.push(toBuffer(chunk));
    } catch (err) {
      misuse ??= err as TypeError;
    }
    // One chunk in hand is enough; the stream's own buffer holds the rest, so
    // backpressure reaches the socket.
    stream.pause();
    signal();
  };
  const onEnd = () => {
    ended = true;
    signal();
  };
  const onError = (err: unknown) => {
    failure ??= err;
    signal();
  };
  const onClose = () => {
    if (!ended) failure ??= new Error('Stream closed before its end');
    signal();
  };
  stream.on('data', onData);
  stream.on('end', onEnd);
  stream.on('error', onError);
  stream.on('close', onClose);

  return {
    async pull() {
      for (;;) {
        if (closed) return null;
        const chunk = queue.shift();
        if (chunk !== undefined) return chunk;
        if (misuse !== undefined) throw misuse;
        if (failure !== undefined) throw sourceFailed(failure);
        if (ended) return null;
        stream.resume();
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
    close() {
      if (closed) return;
      closed = true;
      queue.length = 0;
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
      stream.pause();
      signal();
    },
  };
}

function fromIterable(source: AsyncIterable<Uint8Array>): ChunkSource {
  const iterator = source[Symbol.asyncIterator]();
  let closed = false;
  return {
    async pull() {
      if (closed) return null;
      let result: IteratorResult<Uint8Array>;
      try {
        result = await iterator.next();
      } catch (err) {
        throw sourceFailed(err);
      }
      if (closed || result.done === true) return null;
      return toBuffer(result.value);
    },
    close() {
      if (closed) return;
      closed = true;
      // Not awaited: an async generator queues return() behind a pending next().
      try {
        iterator.return?.()?.catch(() => {});
      } catch {
        // a broken iterator is not our problem once we have stopped
      }
    },
  };
}
