import { HttpError } from '../../../http/errors.js';
import { upstreamFailed } from './failures.js';

// The one relay of an upload body: a file part is handed on to the image host
// while it is still arriving from the user, chunk by chunk with backpressure,
// never held whole. The upstream body ends only once the caller says the whole
// form is good (release): until then the image host holds an unfinished upload
// it throws away, so whatever the site refuses late leaves nothing there.

const noop = () => {};

/**
 * What an abandoned relay settles with: its client left, or its form was refused.
 * Not the image host's failure (the call fails only because we aborted it), so
 * not its 502: a 400, as a body cut off mid-form is, that nobody reads.
 */
const abandoned = () => new HttpError(400, 'BAD_REQUEST', 'The upload was abandoned before it was complete');

/** One upload on its way to the image host. */
export interface Relay<T> {
  /**
   * Resolves once the part's last byte has been handed on. Rejects with the
   * client's error (413, a truncated form) when the part fails, or with the
   * image host's answer when it answers first (a 502, or the refusal it means);
   * once abort() is called, with a 400 (abandoned), as `answer` does.
   */
  readonly contentSent: Promise<void>;
  /** The client's form is complete and valid: end the upstream body. */
  release(): void;
  /** Abandons the upstream request mid-body, so the image host keeps nothing. */
  abort(): void;
  /** The image host's answer, checked (answer.ts). */
  readonly answer: Promise<T>;
}

/** What the relay sends: its own bytes around the client's part. */
export interface RelayBody {
  /** Sent before the part (a multipart head of our own). */
  opening?: Buffer;
  /** The part's bytes as they arrive; read with `next()` only, so an abandoned relay leaves the part to its parser. */
  part: AsyncIterator<Buffer>;
  /** Sent after release (a closing delimiter). */
  closing?: Buffer;
  /**
   * Chunks are gathered into writes of at least this many bytes (but the last). A
   * client's 64 KiB socket reads relayed one by one reach the image host as
   * smaller reads (it drains faster than they arrive), each a hash update and a
   * file write of its own; 0 hands each chunk on as it comes.
   */
  writeBytes: number;
}

/**
 * Starts `send` with the relayed body and a signal that abort() fires. An answer
 * before the whole part was sent is a failure (the image host refused the upload
 * or went away): contentSent rejects with it at once, so the client hears of it.
 */
export function startRelay<T>(body: RelayBody, send: (chunks: AsyncIterable<Buffer>, signal: AbortSignal) => Promise<T>): Relay<T> {
  const controller = new AbortController();
  const sent = deferred<void>();
  const released = deferred<void>();
  // Either may end up unawaited (the image host failed first, the client went away).
  sent.promise.catch(noop);
  released.promise.catch(noop);

  async function* chunks(): AsyncGenerator<Buffer> {
    if (body.opening !== undefined) yield body.opening;
    try {
      let held: Buffer[] = [];
      let heldBytes = 0;
      for (;;) {
        const next = await body.part.next();
        if (next.done === true) break;
        held.push(next.value);
        heldBytes += next.value.length;
        if (heldBytes < body.writeBytes) continue;
        yield held.length === 1 ? held[0]! : Buffer.concat(held, heldBytes);
        held = [];
        heldBytes = 0;
      }
      if (heldBytes > 0) yield held.length === 1 ? held[0]! : Buffer.concat(held, heldBytes);
    } catch (error) {
      // The client's part failed (too large, cut off): it is their error, and
      // throwing here leaves the upstream body unfinished, so it is refused.
      sent.reject(error);
      throw error;
    }
    sent.resolve();
    await released.promise;
    if (body.closing !== undefined) yield body.closing;
  }

  // A call that fails because we aborted it says so, not how the abort reached the image host.
  const answer = send(chunks(), controller.signal).catch((error: unknown) => {
    throw controller.signal.aborted ? abandoned() : error;
  });
  answer.then(
    () => sent.reject(upstreamFailed('The image host answered before the upload was complete')),
    (error: unknown) => sent.reject(error),
  );
  answer.catch(noop);
  return {
    contentSent: sent.promise,
    release: () => released.resolve(),
    abort: () => {
      // First, so a part still arriving settles as abandoned, not as the aborted call.
      sent.reject(abandoned());
      released.reject(abandoned());
      controller.abort();
    },
    answer,
  };
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

/** A promise settled from outside; the first settlement wins, later ones are ignored. */
function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
