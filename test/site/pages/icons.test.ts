// Icons inlined into the page templates ({{#name}}): Tabler's outline drawing in our
// own decorative <svg>; a name that is not an icon stops start-up.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inlineIcon } from '../../../src/services/site/pages/icons.js';

for (const name of ['bell', 'star', 'download']) {
  test(`inlineIcon("${name}"): Tabler's paths, drawn in currentColor, hidden from assistive technology`, () => {
    const svg = inlineIcon(name);
    assert.match(svg, /^<svg class="glyph" [^>]*stroke="currentColor"[^>]*aria-hidden="true" focusable="false">(<path d="[^"]+"\/>)+<\/svg>$/);
    const source = readFileSync(fileURLToPath(import.meta.resolve(`@tabler/icons/outline/${name}.svg`)), 'utf8');
    for (const match of svg.matchAll(/<path d="([^"]+)"/g)) assert.ok(source.includes(`d="${match[1]}"`), match[1]);
    assert.not.match(svg, /stroke="none"/);
  });
}

const refused = [
  { what: 'an unknown icon', name: 'no-such-icon-here' },
  { what: 'a path', name: '../outline/bell' },
  { what: 'upper case', name: 'Bell' },
];
for (const { what, name } of refused) {
  test(`inlineIcon refuses ${what}`, () => {
    assert.throws(() => inlineIcon(name), /page template/);
  });
}

test.run();
