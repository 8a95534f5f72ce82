// A manifest's bytes read as the launcher reads them: UTF-8 without BOM, JSON,
// an object, at most 64 KiB; each way it fails is a problem a person can act on.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_MANIFEST_BYTES, MAX_MANIFEST_DEPTH, readManifest } from '../../../src/services/imghost/packages/manifest-read.js';

const read = (bytes: Buffer | string) => {
  const data = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  return readManifest('plugin.json', data.length, data);
};

const accepted: Array<{ what: string; bytes: Buffer | string; json: unknown }> = [
  { what: 'a plain manifest', bytes: '{"id":"demo","name":"Demo","version":"1.0.0"}', json: { id: 'demo', name: 'Demo', version: '1.0.0' } },
  { what: 'whitespace and new lines around it', bytes: '\r\n  {"id": "demo"}\n\n', json: { id: 'demo' } },
  { what: 'Chinese text', bytes: '{"name":"小地图","description":"在主页展示"}', json: { name: '小地图', description: '在主页展示' } },
  { what: 'an empty object (the site says what is missing)', bytes: '{}', json: {} },
  { what: 'kept as found: numbers, nesting, unknown fields', bytes: '{"version":2,"entry":{"python":"main.py"},"x-extra":[1,null]}', json: { version: 2, entry: { python: 'main.py' }, 'x-extra': [1, null] } },
  { what: 'a repeated key: the last one, as Python and JavaScript both read it', bytes: '{"id":"a","id":"b"}', json: { id: 'b' } },
  { what: `nested ${MAX_MANIFEST_DEPTH} levels`, bytes: `${'{"a":'.repeat(MAX_MANIFEST_DEPTH - 1)}{}${'}'.repeat(MAX_MANIFEST_DEPTH - 1)}`, json: undefined },
  { what: `exactly ${MAX_MANIFEST_BYTES / 1024} KiB`, bytes: `{"pad":"${'x'.repeat(MAX_MANIFEST_BYTES - 10)}"}`, json: undefined },
];

for (const row of accepted) {
  test(`read: ${row.what}`, () => {
    const reading = read(row.bytes);
    assert.ok('json' in reading, JSON.stringify(reading).slice(0, 200));
    if (row.json !== undefined) assert.equal((reading as { json: unknown }).json, row.json);
  });
}

const bom = Buffer.from([0xef, 0xbb, 0xbf]);
const problems: Array<{ what: string; bytes: Buffer | string; size?: number; problem: RegExp }> = [
  { what: 'a byte order mark', bytes: Buffer.concat([bom, Buffer.from('{"id":"demo"}')]), problem: /^"plugin\.json" starts with a byte order mark \(BOM\)/ },
  { what: 'not UTF-8 (GBK, as a Chinese Windows editor saves)', bytes: Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xd0, 0xa1, 0xb5, 0xd8, 0xcd, 0xbc, 0x22, 0x7d]), problem: /^"plugin\.json" is not UTF-8 text$/ },
  { what: 'UTF-16 with its BOM', bytes: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"id":"demo"}', 'utf16le')]), problem: /is not UTF-8 text|not valid JSON/ },
  { what: 'an encoded surrogate (CESU-8)', bytes: Buffer.from([0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d]), problem: /is not UTF-8 text/ },
  { what: 'not JSON: a trailing comma', bytes: '{"id":"demo",}', problem: /^"plugin\.json" is not valid JSON \(/ },
  { what: 'not JSON: comments', bytes: '// my plugin\n{"id":"demo"}', problem: /is not valid JSON/ },
  { what: 'not JSON: NaN, which Python reads', bytes: '{"id":"demo","weight":NaN}', problem: /is not valid JSON/ },
  { what: 'not JSON: empty', bytes: '', problem: /is not valid JSON/ },
  { what: 'not JSON: two values', bytes: '{"id":"a"}{"id":"b"}', problem: /is not valid JSON/ },
  { what: 'not an object: an array', bytes: '[{"id":"demo"}]', problem: /^"plugin\.json" is not a JSON object \(it is an array\)$/ },
  { what: 'not an object: a string', bytes: '"demo"', problem: /is not a JSON object \(it is a string\)/ },
  { what: 'not an object: null', bytes: 'null', problem: /is not a JSON object \(it is null\)/ },
  { what: 'not an object: a number', bytes: '1', problem: /is not a JSON object \(it is a number\)/ },
  { what: `nested ${MAX_MANIFEST_DEPTH + 1} levels`, bytes: `${'{"a":'.repeat(MAX_MANIFEST_DEPTH)}{}${'}'.repeat(MAX_MANIFEST_DEPTH)}`, problem: /more than 64 levels deep/ },
  { what: 'an array nested 30,000 deep (would overflow JSON.stringify)', bytes: `{"a":${'['.repeat(30_000)}${']'.repeat(30_000)}}`, problem: /more than 64 levels deep/ },
  { what: 'larger than 64 KiB, not captured', bytes: Buffer.alloc(0), size: MAX_MANIFEST_BYTES + 1, problem: /^"plugin\.json" is larger than 64 KiB$/ },
];

for (const row of problems) {
  test(`problem: ${row.what}`, () => {
    const data = typeof row.bytes === 'string' ? Buffer.from(row.bytes, 'utf8') : row.bytes;
    const reading = row.size === undefined ? readManifest('plugin.json', data.length, data) : readManifest('plugin.json', row.size, null);
    assert.ok('problem' in reading, JSON.stringify(reading));
    assert.match((reading as { problem: string }).problem, row.problem);
  });
}

test('a JSON error says where, without quoting the file', () => {
  const reading = read(`{"id":"demo", "secret": "${'s'.repeat(300)}" oops}`) as { problem: string };
  assert.ok(reading.problem.length < 220, reading.problem);
  assert.not.match(reading.problem, /sss/);
});

test.run();
