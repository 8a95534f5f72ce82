import sharp from 'sharp';
import { MAX_PNG_PIXELS } from './limits.js';

/** A pathological SVG (millions of path nodes) must not hold a render slot forever. */
const PNG_RENDER_TIMEOUT_SECONDS = 10;
/** sharp takes SVG density in 1..100000 DPI. */
const MIN_DENSITY = 1;
const MAX_DENSITY = 100_000;
/** The density at which an SVG's own width and height are pixels. */
const CSS_DPI = 72;

/**
 * Renders `svg` as a PNG `width` pixels wide. It is rasterized at the density that
 * gives that width directly (a 24-px icon drawn at 24 px and scaled up would be
 * blurred), then resized to the exact width to absorb rounding.
 */
export async function svgToPng(svg: string, width: number): Promise<Buffer> {
  const input = Buffer.from(svg);
  const { width: naturalWidth } = await sharp(input, { limitInputPixels: MAX_PNG_PIXELS }).metadata();
  if (!naturalWidth) throw new Error('SVG has no width');
  const density = Math.min(MAX_DENSITY, Math.max(MIN_DENSITY, (CSS_DPI * width) / naturalWidth));
  return sharp(input, { density, limitInputPixels: MAX_PNG_PIXELS })
    .resize({ width })
    .png()
    .timeout({ seconds: PNG_RENDER_TIMEOUT_SECONDS })
    .toBuffer();
}
