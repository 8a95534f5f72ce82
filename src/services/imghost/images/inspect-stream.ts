import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { HttpError } from '../../../http/errors.js';
import { SNIFF_BYTES, sniffFormat, type ImageFormat } from './formats.js';

export const notAnAcceptedImage = () =>
  new HttpError(400, 'BAD_REQUEST', 'Only JPG, PNG, GIF and WebP images are accepted', { field: 'image' });

/**
 * Passes an upload through unchanged while hashing it (md5 names the file) and
 * checking its first bytes: anything but JPG, PNG, GIF or WebP fails the stream as
 * soon as the signature is in, so a wrong file costs one chunk, not the whole body.
 * A class only because it extends Transform.
 */
export class InspectStream extends Transform {
  #hash: Hash = createHash('md5');
  #head: Buffer = Buffer.alloc(0);
  #format: ImageFormat | null = null;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Known once the stream has ended; null only for an empty file. */
  get format(): ImageFormat | null {
    return this.#format;
  }

  /** Hex md5 of everything that passed; call once, after the end. */
  digest(): string {
    return this.#hash.digest('hex');
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#size += chunk.length;
    this.#hash.update(chunk);
    if (this.#format === null) {
      this.#head = Buffer.concat([this.#head, chunk.subarray(0, SNIFF_BYTES - this.#head.length)]);
      if (this.#head.length >= SNIFF_BYTES) {
        this.#format = sniffFormat(this.#head);
        if (this.#format === null) return callback(notAnAcceptedImage());
      }
    }
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    // A file shorter than SNIFF_BYTES: the short signatures may still match (and
    // sharp will then refuse it); an empty file is the caller's call.
    if (this.#format === null && this.#size > 0) {
      this.#format = sniffFormat(this.#head);
      if (this.#format === null) return callback(notAnAcceptedImage());
    }
    callback();
  }
}
