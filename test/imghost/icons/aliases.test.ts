// SF Symbols names (src/services/imghost/icons/sf-aliases.ts): the table's rules, the whole
// table resolving over a real image host, /api/svg_aliases, /SFs/{file}.svg, and
// ICONS_DIR, where the exact file wins and aliases without their target are unused.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger, silentLogger } from '../../../src/lib/log.js';
import { createImghost } from '../../../src/services/imghost/app.js';
import { AliasTableError, checkAliases, createIconAliases, parseAliasTable } from '../../../src/services/imghost/icons/icon-aliases.js';
import { openIconCatalog } from '../../../src/services/imghost/icons/icon-catalog.js';
import { builtInIconSource } from '../../../src/services/imghost/icons/icon-source.js';
import { SF_ALIAS_TABLE } from '../../../src/services/imghost/icons/sf-aliases.js';
import { listen } from '../../../src/http/server.js';
import { rawRequest } from '../../helpers/raw-http.js';
import { startTestImghost, tempDir, testConfig, type TestServer } from '../../helpers/servers.js';

const get = (base: string, path: string, headers: Record<string, string> = {}) => rawRequest(base, 'GET', path, { headers });
const tablerFile = (name: string) => createRequire(import.meta.url).resolve(`@tabler/icons/outline/${name}`);

let server: TestServer;
test.before(async () => {
  server = await startTestImghost();
});
test.after(async () => {
  await server.close();
});

// ---- the table's text ---------------------------------------------------------

const badTables: Array<{ what: string; text: string; error: RegExp }> = [
  { what: 'one word on a line', text: 'house', error: /line 1: expected "<SF name> <icon name>"/ },
  { what: 'three words on a line', text: 'house home extra', error: /line 1: expected/ },
  { what: 'an upper-case SF name', text: 'House home', error: /"House" is not an SF name/ },
  { what: 'an SF name ending in .svg', text: 'house.svg home', error: /"house.svg" is not an SF name/ },
  { what: 'an SF name with a hyphen', text: 'house-2 home', error: /"house-2" is not an SF name/ },
  { what: 'a target with .svg', text: 'house home.svg', error: /"home.svg" is not an icon name/ },
  { what: 'a target with a path', text: 'house ../home', error: /"..\/home" is not an icon name/ },
  { what: 'an alias listed twice', text: 'house home\n# comment\nhouse building', error: /line 3: "house" is listed twice/ },
];

for (const { what, text, error } of badTables) {
  test(`alias table refuses ${what}, naming the line`, () => {
    assert.throws(() => parseAliasTable(text), (e: Error) => e instanceof AliasTableError && error.test(e.message));
  });
}

test('alias table: comments and blank lines are ignored, targets become file names', () => {
  const table = parseAliasTable('\n# SF name   icon\nhouse   home   # trailing comment\n\nbuilding.2 building\n');
  assert.equal([...table], [
    ['house', 'home.svg'],
    ['building.2', 'building.svg'],
  ]);
});

test('alias table: the shipped table parses and holds a few hundred names, the clients\' among them', () => {
  const table = parseAliasTable(SF_ALIAS_TABLE);
  assert.ok(table.size >= 300, `only ${table.size} aliases`);
  for (const [alias, file] of [
    ['house', 'home.svg'],
    ['xmark', 'x.svg'],
    ['puzzlepiece', 'puzzle.svg'],
    ['building.2', 'building.svg'],
    ['macbook', 'device-laptop.svg'],
  ]) {
    assert.is(table.get(alias!), file, alias);
  }
});

test('alias table: every target exists in the built-in set and no alias is itself a built-in icon', async () => {
  const catalog = await openIconCatalog(builtInIconSource(), silentLogger);
  try {
    const result = checkAliases(parseAliasTable(SF_ALIAS_TABLE), (file) => catalog.path(file) !== undefined);
    assert.equal(result, { missingTargets: [], shadowed: [] });
  } finally {
    catalog.close();
  }
});

test('regression: a table that does not fit the built-in set stops start-up, listing every bad line', async () => {
  const catalog = await openIconCatalog(builtInIconSource(), silentLogger);
  try {
    const table = parseAliasTable('house home\nhouse.fill no-such-icon\nhome building');
    assert.throws(
      () => createIconAliases({ table, catalog, log: silentLogger, strict: true }),
      (e: Error) => e instanceof AliasTableError && /target missing: house\.fill → no-such-icon/.test(e.message) && /"home" is itself a built-in icon/.test(e.message),
    );
  } finally {
    catalog.close();
  }
});

// ---- the whole table over HTTP ---------------------------------------------------

test('every alias of the table answers /SF/{alias} and /SF/{alias}.svg with its target icon', async () => {
  const table = [...parseAliasTable(SF_ALIAS_TABLE)];
  const failures: string[] = [];
  // A few at a time: a few hundred requests, without flooding a shared machine.
  for (let i = 0; i < table.length; i += 16) {
    await Promise.all(
      table.slice(i, i + 16).map(async ([alias, file]) => {
        const [bare, suffixed, target] = await Promise.all([
          get(server.url, `/SF/${alias}?color=white`),
          get(server.url, `/SF/${alias}.svg?color=white`),
          get(server.url, `/SF/${file}?color=white`),
        ]);
        if (bare.status !== 200 || suffixed.status !== 200) failures.push(`${alias}: ${bare.status}/${suffixed.status}`);
        else if (!bare.bytes.equals(target.bytes) || !suffixed.bytes.equals(target.bytes)) failures.push(`${alias}: not ${file}`);
      }),
    );
  }
  assert.equal(failures, []);
});

test('/api/svg_files lists real files only; /api/svg_aliases maps each alias in use to a listed file', async () => {
  const files = JSON.parse((await get(server.url, '/api/svg_files')).body) as string[];
  const listed = new Set(files);
  assert.not.ok(listed.has('house.svg') || listed.has('xmark.svg') || listed.has('building.2.svg'), 'no alias in the file list');

  const answer = await get(server.url, '/api/svg_aliases');
  assert.is(answer.status, 200);
  assert.match(String(answer.headers['content-type']), /^application\/json/);
  const aliases = JSON.parse(answer.body) as Record<string, string>;
  const names = Object.keys(aliases);
  assert.equal(names, [...names].sort(), 'sorted');
  assert.is(names.length, parseAliasTable(SF_ALIAS_TABLE).size);
  assert.is(aliases.house, 'home.svg');
  for (const [alias, file] of Object.entries(aliases)) {
    assert.ok(listed.has(file), `${alias} → ${file} is a listed file`);
    assert.not.ok(listed.has(alias + '.svg'), `${alias} is not a file`);
  }
  const again = await get(server.url, '/api/svg_aliases', { 'If-None-Match': String(answer.headers.etag) });
  assert.is(again.status, 304);
});

// ---- /SFs/{file}.svg ----------------------------------------------------------------

test('/SFs/{file}.svg is the file unchanged, with the icon caching and CSP of /SF', async () => {
  const onDisk = readFileSync(tablerFile('home.svg'));
  const raw = await get(server.url, '/SFs/home.svg?color=red');
  assert.is(raw.status, 200);
  assert.ok(raw.bytes.equals(onDisk), 'byte for byte, the colour ignored');
  const icon = await get(server.url, '/SF/home');
  assert.is(raw.headers['content-type'], 'image/svg+xml');
  assert.is(raw.headers['cache-control'], icon.headers['cache-control']);
  assert.is(raw.headers['content-security-policy'], icon.headers['content-security-policy']);
  assert.ok(raw.headers.etag && raw.headers.etag !== icon.headers.etag, 'its own ETag');
  const again = await get(server.url, '/SFs/home.svg', { 'If-None-Match': String(raw.headers.etag) });
  assert.is(again.status, 304);
  assert.is(again.bytes.length, 0);
  const head = await rawRequest(server.url, 'HEAD', '/SFs/home.svg');
  assert.is(head.status, 200);
  assert.is(head.bytes.length, 0);
});

test('/SFs/{alias}.svg is the target file, as the original folder held SF Symbols names', async () => {
  const raw = await get(server.url, '/SFs/building.2.svg');
  assert.is(raw.status, 200);
  assert.ok(raw.bytes.equals(readFileSync(tablerFile('building.svg'))));
});

for (const path of ['/SFs/home', '/SFs/no-such-icon.svg', '/SFs/', '/SFs/%2e%2e/package.json', '/SFs/../package.json', '/SFs/a/b.svg', '/SFs/HOUSE.svg']) {
  test(`/SFs: ${path} is 404 Icon not found`, async () => {
    const answer = await get(server.url, path);
    assert.is(answer.status, 404);
    assert.is(answer.body, 'Icon not found');
  });
}

// ---- ICONS_DIR ------------------------------------------------------------------------

const SVG = (label: string) => `<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><title>${label}</title><path stroke="currentColor" d="M1 1h22"/></svg>`;

test('ICONS_DIR: the exact file wins over an alias; aliases whose target is absent answer 404 and are logged as unused', async () => {
  const dir = tempDir('lw-alias-icons-');
  writeFileSync(join(dir, 'house.svg'), SVG('my own house'));
  writeFileSync(join(dir, 'x.svg'), SVG('an x'));
  writeFileSync(join(dir, 'garbage.svg'), 'not markup at all');
  const lines: Array<Record<string, any>> = [];
  const log = createLogger({}, { level: 'debug', write: (line) => lines.push(JSON.parse(line)) });
  const config = testConfig({ ICONS_DIR: dir });
  const service = await createImghost({ config, log });
  const running = await listen(service.handler, '127.0.0.1', 0);
  try {
    const house = await get(running.url, '/SF/house');
    assert.is(house.status, 200);
    assert.match(house.body, /my own house/, 'the folder\'s house.svg, not the alias');
    const xmark = await get(running.url, '/SF/xmark.svg');
    assert.is(xmark.status, 200);
    assert.match(xmark.body, /an x/, 'xmark → x.svg, which the folder has');
    const missing = await get(running.url, '/SF/puzzlepiece');
    assert.is(missing.status, 404, 'puzzle.svg is not in the folder');
    assert.is(missing.body, 'Icon not found');

    const raw = await get(running.url, '/SFs/house.svg');
    assert.ok(raw.bytes.equals(Buffer.from(SVG('my own house'))), '/SFs serves the folder\'s file unchanged');
    const notSvg = await get(running.url, '/SFs/garbage.svg');
    assert.is(notSvg.status, 500, 'a listed file that is no SVG is refused as on /SF');
    assert.is(notSvg.body, 'Error processing icon');

    const aliases = JSON.parse((await get(running.url, '/api/svg_aliases')).body);
    assert.equal(aliases, { multiply: 'x.svg', xmark: 'x.svg' }, 'only the aliases in use: house is a file, the rest have no target');
    const unused = lines.find((line) => /aliases whose target is not in ICONS_DIR/.test(line.msg));
    assert.ok(unused, 'logged');
    assert.is(unused!.aliases, parseAliasTable(SF_ALIAS_TABLE).size);
    assert.ok(unused!.unused > 500 && unused!.examples.length > 0);
  } finally {
    await running.close(1000);
    await service.close();
  }
});

test.run();
