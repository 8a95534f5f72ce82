// The minified copies of scripts and stylesheets (src/http/minify.ts): what esbuild
// keeps, and that the build's copies are exactly what a process without them makes,
// so every process serves the same bytes under the same ETags.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { minified, minify, writeMinifiedCopies } from '../../src/http/minify.js';
import { tempDir } from '../helpers/servers.js';

const kept = [
  { what: 'a multi-line template literal, its line breaks and indentation', name: 'a.js', source: 'export const a = `one\n  two\n    ${1 + 1}`;\n', kept: '`one\n  two\n    2`' },
  { what: 'Chinese text and symbols as UTF-8, not \\u escapes', name: 'b.js', source: "export const b = '插件 ★☆ · –';\n", kept: '插件 ★☆ · –' },
  { what: 'relative imports, static and dynamic', name: 'c.js', source: "import { x } from './lib.js';\nexport const c = () => import('./d.js').then(() => x);\n", kept: 'from"./lib.js"' },
  { what: 'a comment-looking string', name: 'd.js', source: "export const d = 'a // b /* c */';\n", kept: "a // b /* c */" },
  { what: 'a stylesheet string with spaces and a custom property', name: 'e.css', source: ':root {\n  --gap:  4px;\n}\na::after { content: "x  y"; }\n', kept: '"x  y"' },
] as const;
for (const c of kept) {
  test(`minify keeps ${c.what}`, () => {
    const out = minify(c.name, Buffer.from(c.source)).toString('utf8');
    assert.ok(out.includes(c.kept), out);
    // Minified indeed: no line of the source's indentation is left.
    assert.not.ok(/\n  [a-z}]/.test(out.replace(/`[^`]*`/g, '')), out);
  });
}

test('minify stops on a syntax error, naming the file', () => {
  assert.throws(() => minify('static/site/app/broken.js', Buffer.from('export const = ;')), /broken\.js/);
});

test("the build's copies are what a process without them makes, and a changed source is minified anew", () => {
  const root = tempDir('lw-minify-static-');
  const out = join(tempDir('lw-minify-out-'), 'minified');
  mkdirSync(join(root, 'app'));
  const script = join(root, 'app', 'a.js');
  const source = Buffer.from('export function add(first, second) {\n  return first + second;\n}\n');
  writeFileSync(script, source);
  writeFileSync(join(root, 'app', 'a.css'), 'a  {  color : red ; }\n');
  writeFileSync(join(root, 'app', 'notes.txt'), 'not minified');

  assert.equal(writeMinifiedCopies(root, out).files, 2);
  assert.is(readdirSync(out).length, 2);
  assert.equal(minified(script, source, out), minify(script, source));

  // The copy is what is read (named by its source's SHA-256)...
  const [copy] = readdirSync(out).filter((name) => name.endsWith('.js'));
  writeFileSync(join(out, copy!), 'export const fromTheCopy = 1;');
  assert.is(minified(script, source, out).toString('utf8'), 'export const fromTheCopy = 1;');
  // ...and never for other bytes: a source edited after the build is minified now.
  const edited = Buffer.from('export function add(first, second) {\n  return second + first;\n}\n');
  assert.equal(minified(script, edited, out), minify(script, edited));

  // Building again replaces the folder as a whole.
  writeFileSync(join(out, 'left-over.js'), '');
  writeMinifiedCopies(root, out);
  assert.not.ok(readdirSync(out).includes('left-over.js'));
});

test.run();
