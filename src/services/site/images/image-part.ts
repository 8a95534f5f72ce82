import { validationFailed } from '../../../http/errors.js';
import type { FilePart } from '../../../http/multipart/index.js';
import { forwardedName, IMAGE_TYPES, imageTypeOf, SIGNATURE_BYTES, type ImageType } from './image-type.js';

/** The form field that carries the image (the old service's `upload.single('image')`). */
export const IMAGE_FIELD = 'image';

/** An image part whose first bytes have been read and checked, the rest still streaming. */
export interface CheckedImage {
  type: ImageType;
  /** Name and type for the outgoing part: ours, never the client's text. */
  filename: string;
  mime: string;
  /** The bytes read to check the type, in order; `rest` carries on after them. */
  head: Buffer[];
  rest: AsyncIterator<Buffer>;
}

export const noImage = () => validationFailed(IMAGE_FIELD, 'Send the image as a multipart/form-data file part named "image"');

export const notAnImage = () => validationFailed(IMAGE_FIELD, 'Only JPG, PNG, GIF and WebP images are accepted');

/**
 * Reads the first bytes of the part and checks them. Null for a form's empty file
 * input (filename="" and no bytes: no file chosen). A part that is not one of the
 * four image types is refused here, before anything is sent to the image host.
 */
export async function checkImagePart(part: FilePart): Promise<CheckedImage | null> {
  // One iterator for the whole part: the head is read from it now and the rest is
  // relayed from it later, with its listener attached all along, so the parser
  // never mistakes the part for an unread one and drains it.
  const rest = part.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let size = 0;
  while (size < SIGNATURE_BYTES) {
    const next = await rest.next();
    if (next.done === true) break;
    head.push(next.value);
    size += next.value.length;
  }
  if (size === 0) {
    if (part.filename === '') return null;
    throw validationFailed(IMAGE_FIELD, 'The image is empty');
  }
  // concat with a length copies only that much (the first chunk may be 64 KiB).
  const type = imageTypeOf(Buffer.concat(head, Math.min(size, SIGNATURE_BYTES)));
  if (type === null) {
    // Destroys the part's stream: the parser discards the rest of it.
    await rest.return?.();
    throw notAnImage();
  }
  return { type, filename: forwardedName(part.filename, type), mime: IMAGE_TYPES[type].mime, head, rest };
}
