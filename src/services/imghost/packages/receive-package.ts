import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isClientGone } from '../../../http/client-gone.js';
import { HttpError, payloadTooLarge } from '../../../http/errors.js';
import type { TempArea } from '../storage/temp-files.js';

export interface ReceivedPackage {
  temp: string;
  sha256: string;
  size: number;
}

/** Hashes and counts what passes, and fails the stream once it grows past `maxBytes`. */
class HashAndLimit extends Transform {
  readonly hash = createHash('sha256');
  size = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      done(payloadTooLarge(`Package is larger than ${this.maxBytes} bytes`));
      return;
    }
    this.hash.update(chunk);
    done(null, chunk);
  }
}

/**
 * Streams the request body into a temp file, hashing it on the way. On any failure
 * (too large, the client going away: 400, a full disk) the temp file is gone before
 * this rejects.
 */
export async function receivePackage(req: IncomingMessage, temps: TempArea, maxBytes: number): Promise<ReceivedPackage> {
  const temp = temps.create('zip');
  const counter = new HashAndLimit(maxBytes);
  // 'wx': a name we did not just make ourselves is never opened, let alone truncated.
  const out = createWriteStream(temp, { flags: 'wx' });
  try {
    await pipeline(req, counter, out);
  } catch (error) {
    // The write stream may still be opening; removing the name before its close
    // would let the open re-create it afterwards.
    if (!out.closed) await once(out, 'close').catch(() => {});
    await temps.discard(temp);
    // A client (or the site's relay) that left mid-body: a 400 nobody reads, never an error of ours.
    if (!req.complete && isClientGone(error)) throw new HttpError(400, 'BAD_REQUEST', 'The request body could not be read', { cause: error });
    throw error;
  }
  return { temp, sha256: counter.hash.digest('hex'), size: counter.size };
}
