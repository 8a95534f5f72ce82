// The brotli bytes of each page's scripts and stylesheets, as the site serves them
// (scripts/page-weight/measure.ts), and of all of them together: the figures of the
// page budget that test/site/pages/page-budget.test.ts holds. Run after
// `npx tsc -p test/tsconfig.json`:
//
//   node .test-build/scripts/page-weight.js
//
// Needs no database: the pages are rendered as the site renders them at start-up.

import { measurePageWeights } from './page-weight/measure.js';

const weight = measurePageWeights();
const number = (n: number) => n.toLocaleString('en');
const say = (line: string) => console.log(line);
const unhashed = (name: string) => name.replace(/\.[0-9a-f]{10}\.(js|css)$/, '.$1');

say('page        files  brotli  (bytes)  | its HTML: brotli (bytes)');
for (const page of weight.pages) {
  const bytes = page.files.reduce((total, file) => total + file.bytes, 0);
  say(`${page.page.padEnd(10)} ${String(page.files.length).padStart(6)} ${number(page.brotli).padStart(7)}  (${number(bytes)})  | ${number(page.html.brotli)} (${number(page.html.bytes)})`);
}
const allBytes = weight.all.files.reduce((total, file) => total + file.bytes, 0);
say(`${'all'.padEnd(10)} ${String(weight.all.files.length).padStart(6)} ${number(weight.all.brotli).padStart(7)}  (${number(allBytes)})`);
say('');
say('file               brotli  (bytes)');
for (const file of weight.all.files) say(`${unhashed(file.name).padEnd(17)} ${number(file.brotli).padStart(7)}  (${number(file.bytes)})`);
