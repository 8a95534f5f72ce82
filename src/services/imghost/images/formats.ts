// The four formats the image host accepts, recognised by their first bytes only:
// a file name or a part's Content-Type is whatever the client chose to send.

export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp';

export interface FormatInfo {
  /** Extension of stored files and of `filename` when the client's is unusable. */
  ext: string;
  mime: string;
}

export const FORMATS: Readonly<Record<ImageFormat, FormatInfo>> = Object.freeze({
  jpeg: { ext: 'jpg', mime: 'image/jpeg' },
  png: { ext: 'png', mime: 'image/png' },
  gif: { ext: 'gif', mime: 'image/gif' },
  webp: { ext: 'webp', mime: 'image/webp' },
});

export const FORMAT_LIST = Object.keys(FORMATS) as ImageFormat[];

/** Bytes needed to tell the formats apart (RIFF....WEBP is the longest signature). */
export const SNIFF_BYTES = 12;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The format whose signature starts `head`, or null. `head` may be shorter than
 * SNIFF_BYTES when the whole file is; a signature longer than the file never matches.
 */
export function sniffFormat(head: Buffer): ImageFormat | null {
  // JPEG: SOI (FF D8) followed by the first marker's FF.
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (head.length >= 8 && head.subarray(0, 8).equals(PNG_SIGNATURE)) return 'png';
  if (head.length >= 6) {
    const gif = head.toString('latin1', 0, 6);
    if (gif === 'GIF87a' || gif === 'GIF89a') return 'gif';
  }
  if (head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP') {
    return 'webp';
  }
  return null;
}

/** sharp's `metadata().format` as one of ours, or null for anything else. */
export function formatFromSharp(name: string | undefined): ImageFormat | null {
  return name === 'jpeg' || name === 'png' || name === 'gif' || name === 'webp' ? name : null;
}

/** Client extensions we keep in `filename` as sent (lower-cased); others give way to the format's. */
const KEPT_EXTENSIONS = new Set(['jpg', 'jpeg', 'png', 'gif', 'webp']);

/**
 * `filename` of the upload answer: the md5 and the client's extension when it is
 * one of ours (so a GIF named x.png keeps ".png", as the old service did), else the
 * detected format's. Only the extension of the client's name is used, never the name.
 */
export function answerFilename(md5: string, clientName: string, format: ImageFormat): string {
  const dot = clientName.lastIndexOf('.');
  const ext = dot === -1 ? '' : clientName.slice(dot + 1).toLowerCase();
  return `${md5}.${KEPT_EXTENSIONS.has(ext) ? ext : FORMATS[format].ext}`;
}
