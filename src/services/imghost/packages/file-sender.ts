import { close, read } from 'node:fs';
import type { ServerResponse } from 'node:http';

// Sends a byte range of an open file as a response body from a small pool of reused
// buffers. A read stream allocates a new buffer per read: at 1 MiB a download, 50 at
// once, that garbage (outside V8's heap) set off full collections of the image
// host's large heap (icon caches) over and over; a CPU split per thread showed V8's
// helper threads spending as much CPU as the main thread. A buffer goes back to the
// pool once its write has reached the socket (the write's callback), so the same few
// buffers carry every download.

/** Bytes read at a time: 4 reads and writes per MiB. */
export const SEND_CHUNK_BYTES = 256 * 1024;
/** Buffers kept for reuse at most (8 MiB); more are made when needed and left to the collector. */
const POOL_MAX = 32;
const pool: Buffer[] = [];
const take = () => pool.pop() ?? Buffer.allocUnsafeSlow(SEND_CHUNK_BYTES);
const give = (buffer: Buffer) => {
  if (pool.length < POOL_MAX) pool.push(buffer);
};

/**
 * Writes bytes start..end (inclusive) of `fd` to `res` (its head already written)
 * and ends it; closes `fd` whatever happens. Settles when the answer is done or cut;
 * a read that fails destroys the answer (its Content-Length cannot be met) and is
 * passed to `onError`.
 */
export function sendFileRange(fd: number, start: number, end: number, res: ServerResponse, onError: (error: Error) => void): Promise<void> {
  return new Promise((resolve) => {
    let position = start;
    let reading = false;
    let done = false;
    let closed = false;
    // Never while a read is on its way: the number could be another file's by then.
    const closeFile = () => {
      if (closed || reading) return;
      closed = true;
      close(fd, () => {});
    };
    const finish = () => {
      done = true;
      closeFile();
      resolve();
    };
    // Cut before we start (the client reset while the file was opened): its 'close'
    // has been and gone, and a write would wait for a 'drain' that never comes.
    if (res.destroyed) {
      finish();
      return;
    }
    res.once('close', finish);
    // One read on its way at a time; it goes on while the socket drains, and its
    // chunk waits for 'drain' (as a read stream reads ahead), so the socket never
    // sits empty through a read after a drain.
    let draining = false;
    let held: { buffer: Buffer; bytes: number } | null = null;
    const write = (buffer: Buffer, bytes: number): void => {
      const more = res.write(bytes === buffer.length ? buffer : buffer.subarray(0, bytes), (writeError) => {
        // A failed write may still be referenced by the socket: leave that buffer to the
        // collector. The answer is cut and no 'drain' will come: stop and close the file.
        if (!writeError) give(buffer);
        else finish();
      });
      if (!more) {
        draining = true;
        res.once('drain', onDrain);
      }
      readNext();
    };
    const onDrain = (): void => {
      draining = false;
      if (held === null || done) return;
      const chunk = held;
      held = null;
      write(chunk.buffer, chunk.bytes);
    };
    const readNext = (): void => {
      if (done) return;
      const remaining = end - position + 1;
      if (remaining <= 0) {
        res.end();
        return;
      }
      const buffer = take();
      reading = true;
      read(fd, buffer, 0, Math.min(remaining, buffer.length), position, (error, bytes) => {
        reading = false;
        if (done) {
          give(buffer);
          closeFile();
          return;
        }
        if (error || bytes === 0) {
          give(buffer);
          const failure = error ?? new Error('the file ended before its size');
          onError(failure);
          res.destroy(failure);
          return;
        }
        position += bytes;
        if (draining) held = { buffer, bytes };
        else write(buffer, bytes);
      });
    };
    readNext();
  });
}
