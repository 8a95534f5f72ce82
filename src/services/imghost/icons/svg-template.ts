// Recolouring, done once per icon file: the SVG text is cut into fixed pieces with
// a slot wherever the colour goes, so a render is `parts.join(color)`. The colour is
// the only text ever inserted, and it has been reduced to `[#0-9a-z]` (color.ts):
// no quoting or escaping question can arise. (The Express original put the raw
// `color` query text into the SVG with a regex: `red"/><script>` became markup.)
//
// The rules, for a single-colour icon set such as Tabler's:
// - `currentColor` anywhere (attributes, style attributes, <style>) becomes the colour.
// - `fill`, `stroke` and `color` attributes on any element take the colour, unless
//   their value is `none`, `transparent`, `inherit` or a `url(...)` paint server
//   (gradients and patterns keep their own colours). So `fill="none"` stays as it is,
//   and a third-party icon drawn with an explicit `fill="#333"` is recoloured whole.
// - The root <svg> gets `color` (for any currentColor left in CSS we cannot see) and,
//   when it has no `fill` of its own, `fill`, because SVG's default fill is black
//   and an icon that relies on it must still take the colour.
// Not touched: `stop-color`, `flood-color`, fills inside style attributes other than
// currentColor. Scripts need no stripping: answers carry a sandboxing CSP.

/** The document does not look like an SVG file: the answer is a processing error. */
export class IconFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IconFormatError';
  }
}

/** Stands for the colour while the template is built; a NUL cannot occur in XML. */
const SLOT = '\u0000';
const PAINT_ATTRIBUTES = new Set(['fill', 'stroke', 'color']);
const KEPT_PAINT = new Set(['none', 'transparent', 'inherit', '']);
const CURRENT_COLOR = /currentcolor/gi;

export type SvgTemplate = readonly string[];

export function renderSvg(template: SvgTemplate, color: string): string {
  return template.join(color);
}

export function compileSvgTemplate(source: string): SvgTemplate {
  if (source.includes(SLOT)) throw new IconFormatError('NUL character in the document');
  const rootAt = findRootElement(source);
  if (rootAt === -1) throw new IconFormatError('no <svg> root element');

  const out: string[] = [];
  let copied = 0;
  const copyTo = (end: number) => {
    out.push(source.slice(copied, end));
    copied = end;
  };

  let at = rootAt;
  let isRoot = true;
  while (at < source.length) {
    const lt = source.indexOf('<', at);
    if (lt === -1) break;
    if (source.startsWith('<!--', lt)) {
      at = skipPast(source, '-->', lt + 4);
    } else if (source.startsWith('<![CDATA[', lt)) {
      at = skipPast(source, ']]>', lt + 9);
    } else if (isNameStart(source.charCodeAt(lt + 1))) {
      const tag = parseStartTag(source, lt);
      if (isRoot) {
        copyTo(tag.nameEnd);
        if (!tag.attributes.some((a) => a.name === 'color')) out.push(` color="${SLOT}"`);
        if (!tag.attributes.some((a) => a.name === 'fill')) out.push(` fill="${SLOT}"`);
        isRoot = false;
      }
      for (const attribute of tag.attributes) {
        if (!PAINT_ATTRIBUTES.has(attribute.name) || attribute.valueStart === -1) continue;
        const value = source.slice(attribute.valueStart, attribute.valueEnd).trim().toLowerCase();
        if (KEPT_PAINT.has(value) || value.startsWith('url(')) continue;
        copyTo(attribute.valueStart);
        // An unquoted value is not XML, but quoting it costs nothing and keeps the
        // output well-formed.
        out.push(attribute.quoted ? SLOT : `"${SLOT}"`);
        copied = attribute.valueEnd;
      }
      at = tag.end;
    } else {
      // End tags, processing instructions, declarations.
      at = skipPast(source, '>', lt + 1);
    }
  }
  copyTo(source.length);
  return out.join('').replace(CURRENT_COLOR, SLOT).split(SLOT);
}

interface Attribute {
  /** Lower case. */
  name: string;
  /** -1 for an attribute without a value. */
  valueStart: number;
  valueEnd: number;
  quoted: boolean;
}

interface StartTag {
  nameEnd: number;
  /** Index just past the tag's `>` (or the end of the text, for a cut-off tag). */
  end: number;
  attributes: Attribute[];
}

// A hand-written scanner rather than one regular expression: every character is
// looked at a bounded number of times, so no input can make it backtrack.
function parseStartTag(source: string, lt: number): StartTag {
  const length = source.length;
  let p = lt + 1;
  while (p < length && isNameChar(source.charCodeAt(p))) p++;
  const nameEnd = p;
  const attributes: Attribute[] = [];
  while (p < length) {
    while (p < length && isSpace(source.charCodeAt(p))) p++;
    if (p >= length) break;
    const c = source[p];
    if (c === '>') return { nameEnd, end: p + 1, attributes };
    if (c === '/') {
      p++;
      continue;
    }
    const nameStart = p;
    while (p < length && !isSpace(source.charCodeAt(p)) && !'=/>'.includes(source[p]!)) p++;
    if (p === nameStart) {
      p++;
      continue;
    }
    const name = source.slice(nameStart, p).toLowerCase();
    while (p < length && isSpace(source.charCodeAt(p))) p++;
    if (source[p] !== '=') {
      attributes.push({ name, valueStart: -1, valueEnd: -1, quoted: false });
      continue;
    }
    p++;
    while (p < length && isSpace(source.charCodeAt(p))) p++;
    const quote = source[p];
    if (quote === '"' || quote === "'") {
      const valueStart = p + 1;
      const close = source.indexOf(quote, valueStart);
      const valueEnd = close === -1 ? length : close;
      attributes.push({ name, valueStart, valueEnd, quoted: true });
      p = valueEnd + 1;
    } else {
      const valueStart = p;
      while (p < length && !isSpace(source.charCodeAt(p)) && source[p] !== '>') p++;
      attributes.push({ name, valueStart, valueEnd: p, quoted: false });
    }
  }
  return { nameEnd, end: length, attributes };
}

/** Index of `<svg` after the prolog (BOM, XML declaration, comments, DOCTYPE), or -1. */
function findRootElement(source: string): number {
  let p = source.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (;;) {
    while (p < source.length && isSpace(source.charCodeAt(p))) p++;
    if (source.startsWith('<?', p)) p = skipPast(source, '?>', p + 2);
    else if (source.startsWith('<!--', p)) p = skipPast(source, '-->', p + 4);
    else if (source.startsWith('<!', p)) p = skipDoctype(source, p + 2);
    else break;
  }
  return source.startsWith('<svg', p) && /^[\s/>]/.test(source.charAt(p + 4)) ? p : -1;
}

/** A DOCTYPE may carry an internal subset in brackets, which may hold `>`. */
function skipDoctype(source: string, from: number): number {
  const gt = source.indexOf('>', from);
  const bracket = source.indexOf('[', from);
  if (bracket !== -1 && (gt === -1 || bracket < gt)) return skipPast(source, '>', skipPast(source, ']', bracket + 1));
  return gt === -1 ? source.length : gt + 1;
}

function skipPast(source: string, terminator: string, from: number): number {
  const found = source.indexOf(terminator, from);
  return found === -1 ? source.length : found + terminator.length;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function isNameStart(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;
}

function isNameChar(code: number): boolean {
  return isNameStart(code) || (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x2e || code === 0x3a;
}
