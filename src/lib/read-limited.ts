import type { Readable } from 'node:stream';

export type LimitedRead =
  | { ok: true; bytes: Buffer }
  /** Past the limit: the rest is left unread, for the caller to drain (behind a 413) or destroy. */
  | { ok: false; reason: 'too-large' }
  /** The stream failed or closed before its end; `error` is its error, if it gave one. */
  | { ok: false; reason: 'cut'; error: unknown };

/**
 * Collects a stream's bytes, but never more than `limit` of them: it stops
 * listening as soon as they pass the limit, and says so. Not `for await`: leaving
 * that loop early destroys the stream, and for a request the socket its answer is
 * about to be written to.
 */
export function readLimited(stream: Readable, limit: number): Promise<LimitedRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (result: LimitedRead) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return done({ ok: false, reason: 'too-large' });
      chunks.push(chunk);
    };
    // A small body usually comes in one chunk: no copy of it then.
    const onEnd = () => done({ ok: true, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
    const onError = (error: unknown) => done({ ok: false, reason: 'cut', error });
    // 'close' before 'end' means the other side went away mid-body.
    const onClose = () => done({ ok: false, reason: 'cut', error: undefined });
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}
