import { Readable } from 'node:stream';

/**
 * Bytes a file stream buffers before the parser stops pulling the source. With one
 * source chunk in hand this bounds what an unread file costs in memory.
 */
const FILE_STREAM_HIGH_WATER_MARK = 64 * 1024;

const noop = () => {};

/**
 * The content of one file part. A class only because it extends Readable: offer()
 * is push() plus a promise that resolves when the consumer wants more, which is how
 * backpressure reaches the source.
 */
export class FileStream extends Readable {
  #wake: (() => void) | null = null;
  #wanted = false;

  constructor() {
    super({ highWaterMark: FILE_STREAM_HIGH_WATER_MARK });
  }

  override _read(): void {
    this.#wanted = true;
    this.#signal();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.#signal();
    callback(err);
  }

  /** null: keep going. A promise: wait, the consumer is behind. Destroyed: data is dropped. */
  offer(data: Buffer): Promise<void> | null {
    if (this.destroyed) return null;
    this.#wanted = false;
    if (this.push(data) || this.#wanted) return null;
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }

  finish(): void {
    if (!this.destroyed) this.push(null);
  }

  /**
   * Destroys with the error. The generator rejects with the same error, so a
   * consumer without an 'error' listener must not crash the process.
   */
  fail(err: unknown): void {
    if (this.destroyed) return;
    if (this.listenerCount('error') === 0) this.on('error', noop);
    this.destroy(err instanceof Error ? err : new Error(String(err)));
  }

  #signal(): void {
    const resolve = this.#wake;
    this.#wake = null;
    resolve?.();
  }
}
