// What the launcher reads (issue 31): list and detail records carry `size` and
// `min_launcher`, and POST /apps/api/updates with `launcher` offers the newest
// approved version whose min_launcher_version that launcher meets, compared as the
// Bloret launcher compares versions (modules/plugin_store.py _version_key).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../../src/db/pool.js';
import { insertPlugin, type TestUser } from '../../../helpers/store-fixtures.js';
import { startStoreSite } from '../../../helpers/store-site.js';
import type { StoreClient } from '../store-client.js';

let client: StoreClient, sql: Sql;
let author: TestUser, closeStore: () => Promise<void>;

const hash = (seed: number) => seed.toString(16).padStart(64, '0');
const fileOf = (id: string, version: string) => `https://store.bloret.com/pkg/${id}-${version}.zip`;

interface Version {
  version: string;
  min: string | null | undefined;
  status?: string;
  size?: number;
}

/** An approved plugin whose versions are `versions`, oldest first, live at `live` (a version number, or an outside link). */
async function pluginWith(id: string, versions: Version[], live: string): Promise<void> {
  const liveVersion = versions.find((v) => v.version === live);
  await insertPlugin(sql, id, author, 'approved', liveVersion
    ? { version: live, sha256: hash(versions.indexOf(liveVersion) + 1), download: fileOf(id, live) }
    : { version: '9.9.9', sha256: null, download: live });
  for (const [index, v] of versions.entries()) {
    // `undefined`: a version uploaded before manifests were kept (manifest null).
    const manifest = v.min === undefined ? null : { id, name: id, version: v.version, author: '', description: '', entry: {}, permissions: [], min_launcher_version: v.min };
    await sql`
      insert into plugin_versions (plugin_id, version, sha256, size, download, entry_count, files, status, created_at, manifest)
      values (${id}, ${v.version}, ${hash(index + 1)}, ${v.size ?? 1000 + index}, ${fileOf(id, v.version)}, 1, '[]', ${v.status ?? 'approved'},
              now() - make_interval(days => ${versions.length - index}), ${manifest === null ? null : sql.json(manifest)})`;
  }
}

test.before(async () => {
  ({ client, sql, author, close: closeStore } = await startStoreSite('ml', { settings: { TRUST_PROXY: 'true' } }));
  await pluginWith('ml.steps', [
    { version: '1.0.0', min: null },
    { version: '2.0.0', min: '25.3' },
    { version: '2.5.0', min: null, status: 'rejected' },
    { version: '2.6.0', min: null, status: 'withdrawn' },
    { version: '3.0.0', min: '26.1', size: 48213 },
  ], '3.0.0');
  await pluginWith('ml.only', [{ version: '1.0.0', min: '26.9' }], '1.0.0');
  await pluginWith('ml.old', [{ version: '1.0.0', min: undefined, size: 777 }], '1.0.0');
  await pluginWith('ml.outside', [], 'https://github.com/me/outside/releases/download/v1/outside.zip');
  await pluginWith('ml.outside-after', [{ version: '1.0.0', min: '99' }], 'https://github.com/me/after/releases/download/v2/after.zip');
});
test.after(() => closeStore());

const keys = [
  // Expected values are what the launcher's _version_key gives (run in Python 3).
  { value: '25.3', key: [25, 3, 0, 0] },
  { value: '25.3.0', key: [25, 3, 0, 0] },
  { value: 'v25.3.0.0', key: [25, 3, 0, 0] },
  { value: 'V2', key: [2, 0, 0, 0] },
  { value: 'vv3.1', key: [3, 1, 0, 0] },
  { value: '  7.1 ', key: [7, 1, 0, 0] },
  { value: '25.4.0-beta.2', key: [25, 4, 0, -1] },
  { value: '1.2.3.4.5', key: [1, 2, 3, 4] },
  { value: '', key: [0, 0, 0, 0] },
  { value: 'beta', key: [-1, 0, 0, 0] },
  { value: '1..2', key: [1, -1, 2, 0] },
  { value: '2.0rc1', key: [2, 0, 0, 0] },
  { value: '1_2+3-4', key: [1, 2, 3, 4] },
  { value: '1.2.3-', key: [1, 2, 3, -1] },
  { value: '0000026.00001', key: [26, 1, 0, 0] },
  { value: '99999999999999999999.1', key: ['99999999999999999999', 1, 0, 0] },
];
for (const c of keys) {
  test(`launcher_version_key(${JSON.stringify(c.value)}) is the launcher's _version_key ${JSON.stringify(c.key)}`, async () => {
    const [row] = await sql<Array<{ key: string[] }>>`select launcher_version_key(${c.value})::text[] as key`;
    assert.equal(row!.key, c.key.map(String));
  });
}

test('list and detail records carry size (the live package\'s bytes, null for an outside link) and min_launcher (the live manifest\'s, else null)', async () => {
  const expected: Record<string, [number | null, string | null]> = {
    'ml.steps': [48213, '26.1'],
    'ml.only': [1000, '26.9'],
    'ml.old': [777, null],
    'ml.outside': [null, null],
    'ml.outside-after': [null, null],
  };
  const list = (await client.get('/apps/api/plugins?limit=500')).body.plugins as Array<Record<string, unknown>>;
  const search = (await client.get('/apps/api/plugins?q=plugin&limit=500')).body.plugins as Array<Record<string, unknown>>;
  for (const [id, [size, min]] of Object.entries(expected)) {
    for (const [where, records] of [['list', list], ['search', search]] as const) {
      const record = records.find((item) => item.id === id);
      assert.ok(record, `${id} in the ${where}`);
      assert.equal([record!.size, record!.min_launcher], [size, min], `${id} in the ${where}`);
    }
    const detail = (await client.get(`/apps/api/plugins/${id}`)).body.plugin;
    assert.equal([detail.size, detail.min_launcher], [size, min], `${id} detail`);
  }
});

test('the kept list answer follows a version going live (a new generation, a new size and min_launcher)', async () => {
  await pluginWith('ml.moving', [{ version: '1.0.0', min: '1', size: 10 }, { version: '2.0.0', min: '2', size: 20 }], '1.0.0');
  const before = (await client.get('/apps/api/plugins?limit=500')).body.plugins.find((item: { id: string }) => item.id === 'ml.moving');
  assert.equal([before.size, before.min_launcher], [10, '1']);
  await sql`update plugins set version = '2.0.0', download = ${fileOf('ml.moving', '2.0.0')}, sha256 = ${hash(2)} where id = 'ml.moving'`;
  const after = (await client.get('/apps/api/plugins?limit=500')).body.plugins.find((item: { id: string }) => item.id === 'ml.moving');
  assert.equal([after.size, after.min_launcher], [20, '2']);
});

let address = 0;
const check = (body: unknown) => client.post('/apps/api/updates', body, { ip: `10.31.${Math.floor(++address / 250)}.${address % 250}` });
const offered = async (launcher: string | undefined, id: string, installed = '0.1.0') => {
  const answer = await check(launcher === undefined ? { plugins: [{ id, version: installed }] } : { launcher, plugins: [{ id, version: installed }] });
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body.unknown, []);
  return answer.body.updates.map((update: { latest: { version: string } }) => update.latest.version)[0] ?? null;
};

const offers = [
  { what: 'without launcher: the live version, as before', launcher: undefined, id: 'ml.steps', version: '3.0.0' },
  { what: 'a launcher exactly at the minimum', launcher: '26.1', id: 'ml.steps', version: '3.0.0' },
  { what: 'missing parts count as 0', launcher: '26.1.0', id: 'ml.steps', version: '3.0.0' },
  { what: 'a leading v and a fourth part', launcher: 'v26.1.0.0', id: 'ml.steps', version: '3.0.0' },
  { what: 'numbers compare as numbers, not text (100 > 26.1)', launcher: '100', id: 'ml.steps', version: '3.0.0' },
  { what: 'a launcher just below the live minimum gets the newest approved it can run (a rejected and a withdrawn one skipped)', launcher: '26.0.9', id: 'ml.steps', version: '2.0.0' },
  { what: 'a pre-release of the minimum is older than it, as the launcher compares', launcher: '26.1.0-beta.2', id: 'ml.steps', version: '2.0.0' },
  { what: 'at an older minimum', launcher: '25.3', id: 'ml.steps', version: '2.0.0' },
  { what: 'below every minimum but a version without one', launcher: '25.2.99', id: 'ml.steps', version: '1.0.0' },
  { what: 'numeric parts: 26.10 meets 26.9', launcher: '26.10', id: 'ml.only', version: '1.0.0' },
  { what: 'no version it can run: nothing offered (and not unknown)', launcher: '26.8', id: 'ml.only', version: null },
  { what: 'a live version uploaded before manifests were kept', launcher: '1.0', id: 'ml.old', version: '1.0.0' },
  { what: 'an outside link: offered whatever the launcher', launcher: '1.0', id: 'ml.outside', version: '9.9.9' },
  { what: 'an outside link live, an older hosted version too new: the live link', launcher: '1.0', id: 'ml.outside-after', version: '9.9.9' },
];
for (const c of offers) {
  test(`updates with launcher: ${c.what}`, async () => {
    assert.is(await offered(c.launcher, c.id), c.version);
  });
}

test('updates with launcher: the version a launcher can run, already installed, is no update', async () => {
  assert.is(await offered('26.0', 'ml.steps', '2.0.0'), null);
  const answer = await check({ launcher: '26.0', plugins: [{ id: 'ml.steps', sha256: hash(2) }] });
  assert.equal(answer.body.updates, [], 'by hash too');
});

test('updates with launcher: the offered version brings its own file, hash, size and install link', async () => {
  const answer = await check({ launcher: '26.0', plugins: [{ id: 'ml.steps', version: '1.0.0' }] });
  assert.equal(answer.body.updates[0].latest, {
    version: '2.0.0',
    sha256: hash(2),
    size: 1001,
    download: fileOf('ml.steps', '2.0.0'),
    install_url: `bloret://plugin/install?download=${encodeURIComponent(fileOf('ml.steps', '2.0.0'))}&id=ml.steps&source=store&sha256=${hash(2)}`,
    changelog: '',
  });
});

test('updates with launcher: one launcher\'s answer is not another\'s (kept per body)', async () => {
  const plugins = [{ id: 'ml.steps', version: '0.1.0' }, { id: 'ml.only', version: '0.1.0' }];
  const older = await check({ launcher: '25.3', plugins });
  const newer = await check({ launcher: '27', plugins });
  assert.equal(older.body.updates.map((u: { latest: { version: string } }) => u.latest.version), ['2.0.0']);
  assert.equal(newer.body.updates.map((u: { latest: { version: string } }) => u.latest.version), ['1.0.0', '3.0.0']);
});

const badLaunchers = [
  { what: 'a number', launcher: 26 },
  { what: 'an empty string', launcher: '' },
  { what: 'words', launcher: 'latest' },
  { what: 'white space around it', launcher: ' 26.1' },
  { what: 'five numbers', launcher: '1.2.3.4.5' },
  { what: 'a part of ten digits', launcher: '1234567890.1' },
  { what: 'a NUL', launcher: '26.1\u0000' },
  { what: 'a list', launcher: ['26.1'] },
  { what: 'longer than 64 characters', launcher: `1.0.0-${'a'.repeat(60)}` },
];
for (const c of badLaunchers) {
  test(`updates: launcher as ${c.what} is 400 VALIDATION_FAILED field "launcher"`, async () => {
    const answer = await check({ launcher: c.launcher, plugins: [{ id: 'ml.steps' }] });
    assert.is(answer.status, 400, JSON.stringify(answer.body));
    assert.is(answer.body.code, 'VALIDATION_FAILED');
    assert.is(answer.body.field, 'launcher');
  });
}

test('updates: launcher null is the same as none', async () => {
  const answer = await check({ launcher: null, plugins: [{ id: 'ml.steps', version: '0.1.0' }] });
  assert.is(answer.status, 200);
  assert.is(answer.body.updates[0].latest.version, '3.0.0');
});

test.run();
