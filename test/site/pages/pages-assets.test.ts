// The pages' own files, read from disk: both catalogues hold every string the
// templates and scripts use; the scripts write no HTML. (What browsers download
// of them: page-budget.test.ts.)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../../src/lib/project-root.js';
import { loadCatalogues } from '../../../src/services/site/pages/catalogue.js';

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

test.run();
