import { CSS_COLOR_NAMES } from './css-colors.js';
import { MAX_COLOR_LENGTH } from './limits.js';

// A colour is the only client text that ever reaches an SVG, so it is reduced to a
// closed alphabet: a known name in lower case, or `#` and lower-case hex digits.
// Anything else (quotes, brackets, `url(...)`, `;`, rgb()) is refused, not escaped.

const HEX = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;

/** The canonical form of a colour (`red`, `#ff000080`), or null when it is not one. */
export function parseColor(raw: string): string | null {
  if (raw.length === 0 || raw.length > MAX_COLOR_LENGTH) return null;
  const lower = raw.toLowerCase();
  // Names first: none of them is also valid hex, so the order only saves work.
  if (CSS_COLOR_NAMES.has(lower)) return lower;
  const hex = HEX.exec(lower);
  return hex ? '#' + hex[1] : null;
}
