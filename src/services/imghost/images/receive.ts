import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { IMAGE_FORM_LIMITS, maxFormBytes, parseMultipart, type FilePart } from '../../../http/multipart/index.js';
import type { ImageFormat } from './formats.js';
import { invalidImage } from './imaging.js';
import { InspectStream } from './inspect-stream.js';
import type { ImageStore } from './store.js';

/** The form field that carries the image (the old multer `upload.single('image')`). */
export const UPLOAD_FIELD = 'image';

/** The form around the image: see IMAGE_FORM_LIMITS. */
export const UPLOAD_FORM_LIMITS = IMAGE_FORM_LIMITS;

/**
 * The largest body a valid upload form can have: that much declared in
 * Content-Length is refused before reading a byte.
 */
export function maxUploadBody(maxFileBytes: number): number {
  return maxFormBytes({ ...IMAGE_FORM_LIMITS, fileBytes: maxFileBytes });
}

export interface ReceivedImage {
  /** In the store's temp folder; the caller commits or removes it. */
  temp: string;
  md5: string;
  size: number;
  format: ImageFormat;
  /** The client's file name, used only for its extension. */
  clientName: string;
}

/**
 * Streams the `image` part of a multipart body into a temp file, hashing and
 * checking it on the way. Resolves with null when the form has no (non-empty)
 * `image` file. On any failure, including the client going away, the temp file is
 * gone before this rejects.
 */
export async function receiveImage(req: IncomingMessage, store: ImageStore, maxFileBytes: number): Promise<ReceivedImage | null> {
  let received: ReceivedImage | null = null;
  try {
    const limits = { ...UPLOAD_FORM_LIMITS, fileBytes: maxFileBytes };
    for await (const part of parseMultipart(req, req.headers['content-type'], limits)) {
      // Anything else is left unread: the parser discards it when we ask for the next part.
      if (part.kind !== 'file' || part.name !== UPLOAD_FIELD || received !== null) continue;
      received = await writeTemp(part, store);
    }
    return received;
  } catch (error) {
    if (received !== null) await store.temps.discard(received.temp);
    throw error;
  }
}

async function writeTemp(part: FilePart, store: ImageStore): Promise<ReceivedImage | null> {
  const temp = store.temps.create('part');
  const inspect = new InspectStream();
  // 'wx': a name we did not just make ourselves is never opened, let alone truncated.
  const out = createWriteStream(temp, { flags: 'wx' });
  try {
    await pipeline(part.stream, inspect, out);
  } catch (error) {
    await removeAfterClose(out, temp, store);
    throw error;
  }
  if (inspect.format === null) {
    await store.temps.discard(temp);
    // A form's empty file input sends filename="" and no bytes: that is "no file".
    if (part.filename === '') return null;
    throw invalidImage('File is empty');
  }
  return { temp, md5: inspect.digest(), size: inspect.size, format: inspect.format, clientName: part.filename };
}

/**
 * The write stream may still be opening its file when the pipeline fails; removing
 * the name before its close would let the open re-create it afterwards.
 */
async function removeAfterClose(out: ReturnType<typeof createWriteStream>, temp: string, store: ImageStore): Promise<void> {
  if (!out.closed) await once(out, 'close').catch(() => {});
  await store.temps.discard(temp);
}
