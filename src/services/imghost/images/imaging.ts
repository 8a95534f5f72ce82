import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import sharp, { type Metadata } from 'sharp';
import { HttpError } from '../../../http/errors.js';
import { formatFromSharp, type ImageFormat } from './formats.js';

// Everything this feature asks of sharp (libvips), with its limits spelled out:
// sharp's defaults (268 megapixels, a 50 MB operation cache, one libvips thread
// pool per image) are tuned for a batch job, not for a server fed by strangers.

/**
 * Pixels of all frames together. A 30000×30000 PNG is ~100 KB on the wire and
 * 900 MB decoded; 100 megapixels still admits any camera photo and long GIFs.
 */
export const MAX_TOTAL_PIXELS = 100_000_000;
/** A 1×1 GIF with a million frames is small in pixels but not in work. */
export const MAX_FRAMES = 1_000;
/** Decodes waiting for a slot (how many run at once: thread-budget.ts) before new ones are refused with 503. */
export const MAX_WAITING_DECODES = 256;
/** A conversion that takes longer is stuck on a hostile file: give up. */
export const CONVERT_TIMEOUT_S = 60;
/** Side of the thumbnail the upload check decodes into: tiny, it only proves the data is whole. */
const CHECK_SIZE = 16;
export const WEBP_OPTIONS = Object.freeze({ quality: 80, effort: 4 });
/**
 * Longest side of a preview. libwebp needs the whole picture in memory: a 100 MP
 * original took 1.2 GB and 97 s to encode at full size, 4096 px takes ~180 MB and
 * 3 s. 4096 keeps a 12 MP phone photo (4032×3024) whole and covers 4K screens;
 * only bigger originals are scaled down (the original URL still has every pixel).
 */
export const MAX_PREVIEW_SIDE = 4096;

/**
 * 'error' refuses truncated and undecodable pixel data but tolerates libjpeg
 * warnings such as "extraneous bytes before marker", common in camera files that
 * every browser shows. Upload check and conversion use the same level, so what is
 * accepted can always be converted.
 */
const FAIL_ON = 'error' as const;

const INPUT_OPTIONS = Object.freeze({
  animated: true,
  failOn: FAIL_ON,
  limitInputPixels: MAX_TOTAL_PIXELS,
});

let configured = false;
/**
 * Process-wide sharp settings, applied once. Concurrency is bounded by our own
 * queue (thread-budget.ts: one decode per core when the libuv pool has room), so
 * each image gets one libvips thread instead of one per core each; the operation cache would only hold decoded pixels of files we
 * never read twice (previews are kept on disk).
 */
export function configureSharp(): void {
  if (configured) return;
  configured = true;
  sharp.concurrency(1);
  sharp.cache(false);
}

export const invalidImage = (message = 'File is not a valid image') =>
  new HttpError(400, 'BAD_REQUEST', message, { field: 'image' });

/**
 * Refuses what is not a whole, decodable image of the format its bytes announced:
 * the header (format, dimensions, frames) first, which is cheap and catches
 * decompression bombs before a pixel is decoded, then a decode into a tiny
 * thumbnail, because a truncated file has a perfectly good header. JPEGs shrink
 * while decoding, and the pipeline streams, so this costs little memory.
 */
export async function checkImage(path: string, expected: ImageFormat): Promise<void> {
  let meta: Metadata;
  try {
    meta = await sharp(path, INPUT_OPTIONS).metadata();
  } catch (error) {
    throw invalidImage(/pixel limit/i.test(String(error)) ? 'Image has too many pixels' : undefined);
  }
  if (formatFromSharp(meta.format) !== expected) throw invalidImage();
  const frames = meta.pages ?? 1;
  const frameHeight = meta.pageHeight ?? meta.height ?? 0;
  const width = meta.width ?? 0;
  if (width < 1 || frameHeight < 1) throw invalidImage();
  if (frames > MAX_FRAMES) throw invalidImage(`Image has more than ${MAX_FRAMES} frames`);
  if (width * frameHeight * frames > MAX_TOTAL_PIXELS) throw invalidImage('Image has too many pixels');
  try {
    await sharp(path, INPUT_OPTIONS)
      .resize(CHECK_SIZE, CHECK_SIZE, { fit: 'inside' })
      .raw()
      .timeout({ seconds: CONVERT_TIMEOUT_S })
      .toBuffer();
  } catch {
    throw invalidImage('Image data is truncated or corrupt');
  }
}

/**
 * The preview: EXIF orientation applied (phones store sideways pixels plus a tag),
 * every frame kept so an animated GIF stays animated, metadata dropped, at most
 * MAX_PREVIEW_SIDE on a side.
 */
export async function convertToWebp(source: string, target: string): Promise<void> {
  const converter = sharp(source, INPUT_OPTIONS)
    .rotate()
    .resize(MAX_PREVIEW_SIDE, MAX_PREVIEW_SIDE, { fit: 'inside', withoutEnlargement: true })
    .webp(WEBP_OPTIONS)
    .timeout({ seconds: CONVERT_TIMEOUT_S });
  // Written by Node rather than by libvips (toFile): a full disk then fails with
  // its errno (ENOSPC, EDQUOT) instead of a libvips message, and can be told apart.
  // 'wx': a name we did not just make ourselves is never opened, let alone truncated.
  const out = createWriteStream(target, { flags: 'wx' });
  try {
    await pipeline(converter, out);
  } catch (error) {
    // Still opening, it would create the file after the caller removed it.
    if (!out.closed) await once(out, 'close').catch(() => {});
    throw error;
  }
}
