import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The pages' pictograms are Tabler's outline icons (the set the image host serves
// under /SF), inlined into the HTML at start-up: drawn with currentColor, so they
// follow the theme, need no font that has the glyph, and cost no request. Only the
// icon's paths are taken; the <svg> element is ours (Tabler's own `class="icon"`
// would pick up the stylesheet's plugin-icon size).

const ICON_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** Tabler's `outline/<name>.svg` as an inline, decorative <svg>; throws for an unknown icon. */
export function inlineIcon(name: string): string {
  if (!ICON_NAME.test(name)) throw new Error(`page template: "${name}" is not an icon name`);
  let source: string;
  try {
    source = readFileSync(fileURLToPath(import.meta.resolve(`@tabler/icons/outline/${name}.svg`)), 'utf8');
  } catch {
    throw new Error(`page template: no Tabler icon "${name}"`);
  }
  const paths = [...source.matchAll(/<path\b[^>]*\/>/g)]
    .map((match) => match[0].replace(/\s+/g, ' ').replace(' />', '/>'))
    // The transparent 24×24 square that only fixes the drawing's box.
    .filter((path) => !path.includes('stroke="none"'));
  if (paths.length === 0) throw new Error(`page template: Tabler icon "${name}" has no paths`);
  return (
    '<svg class="glyph" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="20" height="20" fill="none" ' +
    'stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">' +
    paths.join('') +
    '</svg>'
  );
}
