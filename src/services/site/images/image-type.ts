// The four image types the upload accepts, told apart by their first bytes only:
// a file name or a part's Content-Type is whatever the client chose to send.
// (The image host checks again, and decodes the whole image; this check only
// spares it, and the user's wait, anything that is plainly not an image.)

export type ImageType = 'jpeg' | 'png' | 'gif' | 'webp';

export const IMAGE_TYPES: Readonly<Record<ImageType, { ext: string; mime: string }>> = Object.freeze({
  jpeg: { ext: 'jpg', mime: 'image/jpeg' },
  png: { ext: 'png', mime: 'image/png' },
  gif: { ext: 'gif', mime: 'image/gif' },
  webp: { ext: 'webp', mime: 'image/webp' },
});

/** Bytes needed to tell the types apart ("RIFF" size "WEBP" is the longest signature). */
export const SIGNATURE_BYTES = 12;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The type whose signature starts `head`, or null. `head` may be shorter than
 * SIGNATURE_BYTES when the whole file is; a signature longer than it never matches.
 */
export function imageTypeOf(head: Buffer): ImageType | null {
  // JPEG: SOI (FF D8) then the first marker's FF.
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (head.length >= 8 && head.subarray(0, 8).equals(PNG_SIGNATURE)) return 'png';
  if (head.length >= 6) {
    const gif = head.toString('latin1', 0, 6);
    if (gif === 'GIF87a' || gif === 'GIF89a') return 'gif';
  }
  if (head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  return null;
}

const KEPT_EXTENSIONS = new Set(['jpg', 'jpeg', 'png', 'gif', 'webp']);

/**
 * The file name sent on to the image host. It uses only the extension (to name
 * `filename` in its answer), so only that is kept: the client's when it is one of
 * ours, else the detected type's. No client text reaches the outgoing part's headers.
 */
export function forwardedName(clientName: string, type: ImageType): string {
  const dot = clientName.lastIndexOf('.');
  const ext = dot === -1 ? '' : clientName.slice(dot + 1).toLowerCase();
  return `image.${KEPT_EXTENSIONS.has(ext) ? ext : IMAGE_TYPES[type].ext}`;
}
