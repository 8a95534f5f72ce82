// The launcher trims ids and permissions with Python's str.strip(), which drops
// what str.isspace() calls white space: JavaScript's trim() also drops U+FEFF and
// keeps U+001C..U+001F and U+0085, so " \x85process.exec" would be a permission
// the store does not know while the launcher grants process.exec.

const PYTHON_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const EDGES = new RegExp(`^[${PYTHON_SPACE}]+|[${PYTHON_SPACE}]+$`, 'g');

/** str.strip() with no argument. */
export function pythonStrip(value: string): string {
  return value.replace(EDGES, '');
}
