// The page budget (issue 34): what browsers download of each page's scripts and
// stylesheets, in brotli bytes as the site serves them, found from the pages' own
// HTML and the scripts' imports (scripts/page-weight/measure.ts); and the sources
// are served as esbuild minifies them (src/http/minify.ts), with no rule of ours
// between them and the browser.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { minify } from '../../../src/http/minify.js';
import { loadStaticFolder, prepareFile } from '../../../src/http/static-files.js';
import { projectRoot } from '../../../src/lib/project-root.js';
import { SITE_STATIC_OPTIONS } from '../../../src/services/site/pages/feature.js';
import { loadedFiles, measurePageWeights } from '../../../scripts/page-weight/measure.js';

/** One page's scripts and stylesheets, brotli bytes. */
const PAGE_BUDGET_BYTES = 24 * 1024;
/** Every page's together, each file once (a visitor of every page downloads each once: the names are hashed and kept). */
const ALL_PAGES_BUDGET_BYTES = 32 * 1024;

const weight = measurePageWeights();
const unhashed = (name: string) => name.replace(/\.[0-9a-f]{10}\.(js|css)$/, '.$1');

test(`each page's scripts and stylesheets stay under ${PAGE_BUDGET_BYTES} brotli bytes`, () => {
  assert.ok(weight.pages.length >= 7, `${weight.pages.length} pages measured`);
  for (const page of weight.pages) {
    assert.ok(page.brotli < PAGE_BUDGET_BYTES, `${page.page}: ${page.brotli} brotli bytes (${page.files.map((file) => `${unhashed(file.name)} ${file.brotli}`).join(', ')})`);
  }
});

test(`all pages' scripts and stylesheets together stay under ${ALL_PAGES_BUDGET_BYTES} brotli bytes`, () => {
  assert.ok(weight.all.brotli < ALL_PAGES_BUDGET_BYTES, `${weight.all.brotli} brotli bytes: ${weight.all.files.map((file) => `${unhashed(file.name)} ${file.brotli}`).join(', ')}`);
});

test('each page is measured with its own script, what that imports, and the stylesheet', () => {
  for (const page of weight.pages) {
    const names = page.files.map((file) => unhashed(file.name));
    for (const name of [`app/${page.page}.js`, 'app/lib.js', 'app/site.css']) assert.ok(names.includes(name), `${page.page}: ${name} not counted (${names.join(', ')})`);
    // Every page's script imports header.js (directly or not): found through the imports, not the HTML.
    assert.ok(names.includes('app/header.js'), `${page.page}: imports not followed (${names.join(', ')})`);
  }
});

test('scripts and stylesheets are served as esbuild minifies them, but for the hashed names of their imports', () => {
  const root = join(projectRoot(), 'static', 'site');
  const files = loadStaticFolder(root, SITE_STATIC_OPTIONS);
  let checked = 0;
  for (const [name, file] of files) {
    if (!/^app\/[a-z-]+\.(js|css)$/.test(name)) continue;
    const served = file.body.toString('utf8').replace(/(\.\/[a-z-]+)\.[0-9a-f]{10}\.js(['"])/g, '$1.js$2');
    assert.is(served, minify(join(root, name), readFileSync(join(root, name))).toString('utf8'), name);
    checked++;
  }
  assert.ok(checked >= 10, `${checked} files checked`);
});

const served = (entries: Record<string, string>) =>
  new Map(Object.entries(entries).map(([name, text]) => [name, prepareFile(name, Buffer.from(text), 'no-cache')]));

const finding = [
  {
    what: 'a stylesheet link, a module preload and a script source',
    html: '<link rel="stylesheet" href="/static/app/a.css"><link rel="modulepreload" href="/static/app/b.js"><script type="module" src="/static/app/c.js"></script>',
    files: { 'app/a.css': 'a{}', 'app/b.js': '', 'app/c.js': '' },
    loaded: ['app/a.css', 'app/b.js', 'app/c.js'],
  },
  {
    what: 'imports, static and dynamic, relative to the importing script, each file once',
    html: '<script type="module" src="/static/app/c.js"></script>',
    files: { 'app/c.js': "import './d.js';\nimport { x } from \"./e.js\";", 'app/d.js': "import('../f.js')", 'app/e.js': "import './d.js';", 'f.js': '' },
    loaded: ['app/c.js', 'app/d.js', 'app/e.js', 'f.js'],
  },
  {
    what: 'links that load no script or stylesheet, data blocks and other tags are not counted',
    html: '<link rel="icon" href="data:,"><a href="/static/app/x.js"></a><script type="application/json" id="strings">{"a":"<script src=x>"}</script>',
    files: { 'app/x.js': '' },
    loaded: [],
  },
] as const;
for (const c of finding) {
  test(`loadedFiles: ${c.what}`, () => {
    assert.equal([...loadedFiles('page', c.html, served(c.files))].sort(), [...c.loaded]);
  });
}

const refused = [
  { what: 'a file the site does not serve', html: '<script type="module" src="/static/app/gone.js"></script>', files: {}, message: /app\/gone\.js/ },
  { what: 'an import of a file the site does not serve', html: '<script type="module" src="/static/app/c.js"></script>', files: { 'app/c.js': "import './gone.js';" }, message: /app\/c\.js loads app\/gone\.js/ },
  { what: 'a script from elsewhere', html: '<script src="https://cdn.example/x.js"></script>', files: {}, message: /not one of the site's static files/ },
] as const;
for (const c of refused) {
  test(`loadedFiles refuses ${c.what}`, () => {
    assert.throws(() => loadedFiles('page', c.html, served(c.files)), c.message);
  });
}

test.run();
