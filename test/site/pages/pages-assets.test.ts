// The pages' own files, read from disk: both catalogues hold every string the
// templates and scripts use; the scripts write no HTML; what is served stays
// within its budget.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../../src/lib/project-root.js';
import { compactSource, loadStaticFolder } from '../../../src/http/static-files.js';
import { loadCatalogues } from '../../../src/site/pages/catalogue.js';
import { SITE_STATIC_OPTIONS } from '../../../src/site/pages/feature.js';

const root = join(projectRoot(), 'static', 'site');
const catalogues = loadCatalogues(join(root, 'i18n'));
const read = (folder: string, ext: string) =>
  readdirSync(join(root, folder))
    .filter((name) => name.endsWith(ext))
    .map((name) => ({ name, text: readFileSync(join(root, folder, name), 'utf8') }));

test('every {{key}} of the templates is in both catalogues', () => {
  for (const { name, text } of read('pages', '.html')) {
    for (const [, key] of text.matchAll(/\{\{([A-Za-z][A-Za-z0-9_.]*)\}\}/g)) {
      for (const [language, catalogue] of Object.entries(catalogues)) assert.ok(key! in catalogue, `${name}: ${key} missing in ${language}`);
    }
  }
});

test("every t('key') of the scripts is in both catalogues", () => {
  let count = 0;
  for (const { name, text } of read('app', '.js')) {
    for (const [, key] of text.matchAll(/\bt\('([^']+)'[,)]/g)) {
      count++;
      for (const [language, catalogue] of Object.entries(catalogues)) assert.ok(key! in catalogue, `${name}: ${key} missing in ${language}`);
    }
  }
  assert.ok(count > 100, `${count} keys found`);
  // Keys made from data: statuses and field names.
  for (const key of ['status.pending', 'status.approved', 'status.rejected', 'field.longDescription', 'field.screenshots', 'landing.installer', 'landing.zip']) {
    assert.ok(key in catalogues.en && key in catalogues['zh-CN'], key);
  }
});

test('the scripts write no HTML: no innerHTML, outerHTML, insertAdjacentHTML or document.write', () => {
  for (const { name, text } of read('app', '.js')) {
    assert.not.match(text, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/, name);
  }
});

/** Pages' own JavaScript and CSS together, uncompressed, as served (issue 11). */
const BUDGET_BYTES = 60 * 1024;

test('the pages’ own JavaScript and CSS, as served, stay under 60 KB uncompressed', () => {
  const files = loadStaticFolder(root, SITE_STATIC_OPTIONS);
  let served = 0;
  let source = 0;
  for (const [name, file] of files) {
    if (!/^app\/[a-z]+\.(js|css)$/.test(name)) continue;
    served += file.body.length;
    source += statSync(join(root, name)).size;
  }
  assert.ok(served < BUDGET_BYTES, `${served} bytes served (${source} in the sources)`);
  assert.ok(served < source, 'comments and indentation are not served');
});

const compacting = [
  { what: 'line comments and blank lines go', source: '// a\nconst a = 1;\n\n  // b\nf(a);', served: 'const a=1;f(a);' },
  { what: 'block comments starting a line go', source: '/** doc\n * more\n */\nx();\n/* one */\ny();', served: 'x();y();' },
  { what: 'code after a closing block comment stays', source: '/* a\n */ z();', served: ' z();' },
  { what: 'indentation goes', source: 'if (a) {\n    b();\n}', served: 'if(a){b();}' },
  { what: 'a comment after code stays (it may be inside a string)', source: "const u = 'https://x'; // keep", served: "const u='https://x';// keep" },
  { what: 'a break after ; { or , goes', source: 'f(a,\n  b);\nif (c) {\n  d();\n}\ne()', served: 'f(a,b);if(c){d();}\ne()' },
  { what: 'a break after a line holding // stays (a trailing comment)', source: "g(); // why\nh();", served: "g();// why\nh();" },
  { what: 'a break after anything else stays (automatic semicolons)', source: 'let a = b\n(c)\nreturn\nx', served: 'let a=b\n(c)\nreturn\nx' },
  { what: 'CSS', kind: 'css', source: '/* theme */\n:root {\n  --a: 1px;\n}', served: ':root{--a:1px}' },
  { what: 'CSS selectors keep their colons and spaces', kind: 'css', source: 'a:hover,\n.b .c:focus-visible {\n  color: red;\n  margin: 0 auto;\n}\n@media (max-width: 40rem) {\n  .d { e: f; }\n}', served: 'a:hover,.b .c:focus-visible{color:red;margin:0 auto}@media (max-width: 40rem){.d{e:f}}' },
  { what: 'spaces beside punctuation go, not inside strings', source: "const s = 'a = b, c' + \"d ( e\" + 'it\\'s = x';", served: "const s='a = b, c'+\"d ( e\"+'it\\'s = x';" },
  { what: 'from a / that may be a division on, the line stays as it is', source: 'const r = a / b, m = /x = [ a, b ]/g.test(c);', served: 'const r=a / b, m = /x = [ a, b ]/g.test(c);' },
  { what: 'a regular expression where only one can start is copied whole, and the line goes on', source: 'const m = /x = [ a/, b ]\\/ y/g.test(c) && f( d );', served: 'const m=/x = [ a/, b ]\\/ y/g.test(c)&&f(d);' },
  { what: 'after a word a / is copied as it is with the rest (return /a/ or a division)', source: 'return /a b/.test( c );', served: 'return /a b/.test( c );' },
  { what: 'a comment after code stays whole', source: 'f( a ); /* x = y */ g( b );', served: 'f(a);/* x = y */ g( b );' },
  { what: 'a template literal is copied whole, and the line goes on', source: 'const m = `a = ${b} , c`; x = y;', served: 'const m=`a = ${b} , c`;x=y;' },
  { what: 'a template literal with a quote or brace in ${} stays as it is with the rest', source: "const m = `a ${f('x')} b`; x = y;", served: "const m=`a ${f('x')} b`; x = y;" },
  { what: 'CSS: a / is a separator, spaces after it still go', kind: 'css', source: 'a { font: 16px/1.5 a, b; color: red; }', served: 'a{font:16px/1.5 a,b;color:red}' },
  { what: 'spaces beside + - * % go, not between two signs (a - -b is not a--b; a + -b keeps it too)', source: 'a = b - -c + +d * e % f + -g - +h;', served: 'a=b- -c+ +d*e%f+ -g- +h;' },
  { what: 'a break before } ) or ] goes, not before anything else', source: 'f(a\n)\n[b]\nreturn x\n}', served: 'f(a)\n[b]\nreturn x}' },
  { what: 'a break after ( [ => && or || goes', source: 'f(\n  a,\n  [\n    b]);\nconst g = (x) =>\n  x &&\n  y ||\n  z;', served: 'f(a,[b]);const g=x=>x&&y||z;' },
  { what: 'an arrow function\'s lone parameter loses its parentheses, not after a word or with more parameters', source: "xs.map((x) => f(x)), h = (y)=>y, g(async (z) => z, (a, b) => a, 'c (d) => e');", served: "xs.map(x=>f(x)),h=y=>y,g(async(z)=>z,(a,b)=>a,'c (d) => e');" },
  { what: 'CSS: spaces beside { } ; , > go; beside + and in values they stay', kind: 'css', source: 'a > b ,\nc + d { width: calc(1px + 2px); }', served: 'a>b,c + d{width:calc(1px + 2px)}' },
  { what: 'CSS: a declaration\'s colon loses its space after { or ; (never a selector\'s)', kind: 'css', source: '.a { color: red; margin: 0 }\n.b :is(.c) { d: e }', served: '.a{color:red;margin:0}.b :is(.c){d:e}' },
] as const;
for (const c of compacting) {
  test(`compactSource: ${c.what}`, () => {
    assert.is(compactSource(c.source, 'kind' in c ? c.kind : 'js'), c.served);
  });
}

test.run();
