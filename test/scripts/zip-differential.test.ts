// The differential script's own reading of the readers' output and its comparison,
// on canned output: the unit tests need none of python3, unzip or bsdtar.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listingDifference } from '../../scripts/zip-differential/compare.js';
import { parseUnzipList, unescapeBsdtar } from '../../scripts/zip-differential/listings.js';

test('unzip -l: names (a leading space, spaces, UTF-8) and sizes between the rulers', () => {
  const output = [
    'Archive:  b.zip',
    '  Length      Date    Time    Name',
    '---------  ---------- -----   ----',
    '        4  2026-11-29 02:07    lead.txt',
    '        3  2026-11-29 02:03   d/é and ü.txt',
    '        0  1980-01-01 00:00   d/',
    '---------                     -------',
    '        7                     3 files',
  ].join('\n');
  assert.equal(parseUnzipList(output), [
    { name: ' lead.txt', size: 4 },
    { name: 'd/é and ü.txt', size: 3 },
    { name: 'd/', size: 0 },
  ]);
  assert.throws(() => parseUnzipList('caution: filename not matched'));
});

const bsdtarLines = [
  { what: 'a plain name', line: 'lib/main.py', name: 'lib/main.py' },
  { what: 'UTF-8 it prints as it is', line: '说明/读我.txt', name: '说明/读我.txt' },
  { what: 'a character shown as octal bytes', line: 'a\\342\\200\\250b.txt', name: 'a\u2028b.txt' },
  { what: 'a C escape and a backslash', line: 'a\\tb\\\\c', name: 'a\tb\\c' },
];
for (const c of bsdtarLines) {
  test(`bsdtar's escapes read back: ${c.what}`, () => assert.is(unescapeBsdtar(c.line), c.name));
}

const inspector = { entries: [{ name: 'plugin.json', size: 31 }, { name: 'readme.txt', size: 8 }], entryCount: 2 };
const differences = [
  { what: 'the same entries in another order', listed: [{ name: 'readme.txt', size: 8 }, { name: 'plugin.json', size: 31 }], differs: null },
  { what: 'the same names, no sizes', listed: [{ name: 'readme.txt', size: null }, { name: 'plugin.json', size: null }], differs: null },
  { what: 'an entry more', listed: [{ name: 'plugin.json', size: 31 }, { name: 'readme.txt', size: 8 }, { name: 'main.exe', size: 7 }], differs: /3 entries listed, 2 .*only here: "main\.exe" \(7 bytes\)/ },
  { what: 'another size', listed: [{ name: 'plugin.json', size: 13 }, { name: 'readme.txt', size: 8 }], differs: /only here: "plugin\.json" \(13 bytes\); only in the inspector's list: "plugin\.json" \(31 bytes\)/ },
  { what: 'a name twice', listed: [{ name: 'plugin.json', size: null }, { name: 'plugin.json', size: null }, { name: 'readme.txt', size: null }], differs: /only here: "plugin\.json"/ },
  { what: 'an invisible character, shown escaped', listed: [{ name: 'plugin.json', size: null }, { name: 'readme\u200b.txt', size: null }], differs: /"readme\\u\{200b\}\.txt"/ },
];
for (const c of differences) {
  test(`listings compared: ${c.what}`, () => {
    const difference = listingDifference(inspector, c.listed);
    if (c.differs === null) assert.is(difference, null);
    else assert.match(difference ?? '', c.differs);
  });
}

test('listings compared: a list the inspector cut short is compared by count and by the names it holds', () => {
  const listed = Array.from({ length: 3 }, (_, i) => ({ name: `${i}.txt`, size: 1 }));
  const cut = { entries: [{ name: '0.txt', size: 1 }], entryCount: 3 };
  assert.is(listingDifference(cut, listed), null);
  assert.match(listingDifference(cut, listed.slice(1)) ?? '', /2 entries listed, 3 .*only in the inspector's list: "0\.txt"/);
});

test.run();
