import { parseColor } from './color.js';
import { invalidQuery } from './icon-errors.js';
import { DEFAULT_COLOR, DEFAULT_PNG_SIZE, MAX_PNG_SIZE, MIN_PNG_SIZE } from './limits.js';

// The query of /SF/{name}. Each parameter may appear once; an empty value means the
// default (as `?color=` did in the original). Every other value is either valid or
// a 400 with a plain-text reason.

export type IconFormat = 'svg' | 'png';

export interface IconQuery {
  /** Canonical colour: a lower-case name or `#` and lower-case hex. */
  color: string;
  format: IconFormat;
  /** PNG width in pixels; 0 for SVG, which has no pixel size. */
  size: number;
}

const PNG_ON = new Set(['true', '1']);
const PNG_OFF = new Set(['false', '0', '']);
const SIZE = /^\d{1,4}$/;

export function parseIconQuery(query: URLSearchParams): IconQuery {
  const colorText = single(query, 'color', 'Invalid color');
  const color = colorText === undefined || colorText === '' ? DEFAULT_COLOR : parseColor(colorText);
  if (color === null) throw invalidQuery('Invalid color', 'color');

  const pngText = single(query, 'png', 'Invalid png: use png=true or png=1')?.toLowerCase();
  let format: IconFormat = 'svg';
  if (pngText !== undefined && PNG_ON.has(pngText)) format = 'png';
  else if (pngText !== undefined && !PNG_OFF.has(pngText)) throw invalidQuery('Invalid png: use png=true or png=1', 'png');

  // Checked for SVG too, so a mistake shows at once rather than when png is added.
  const sizeMessage = `Invalid size: a whole number from ${MIN_PNG_SIZE} to ${MAX_PNG_SIZE}`;
  const sizeText = single(query, 'size', sizeMessage);
  let size = DEFAULT_PNG_SIZE;
  if (sizeText !== undefined && sizeText !== '') {
    size = SIZE.test(sizeText) ? Number(sizeText) : NaN;
    if (!(size >= MIN_PNG_SIZE && size <= MAX_PNG_SIZE)) throw invalidQuery(sizeMessage, 'size');
  }
  return { color, format, size: format === 'png' ? size : 0 };
}

function single(query: URLSearchParams, name: string, message: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw invalidQuery(message, name);
  return values[0];
}
