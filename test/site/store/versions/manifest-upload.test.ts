// What a package says, enforced through the upload (issue 31), both real services:
// manifests placed every way the launcher accepts or refuses, the version taken
// from the manifest, the shapes an author and an administrator read, a corpus of
// real secret formats refused without the secret in any answer, the checks a
// reviewer sees (and their count in the queue), blocked files after a removal,
// and the plugin's permissions following its live manifest.
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../../src/db/pool.js';
import { secretSamples } from '../../../fixtures/secret-corpus.js';
import { insertPlugin, type TestUser } from '../../../helpers/store-fixtures.js';
import type { TestServer } from '../../../helpers/servers.js';
import { as, startStoreSite } from '../../../helpers/store-site.js';
import { buildZip } from '../../../helpers/zip-writer.js';
import { newPlugin, type StoreClient } from '../store-client.js';
import { uploadVersion, zipOf, type Answer } from './versions-client.js';

let imghost: TestServer, site: TestServer, client: StoreClient, sql: Sql;
let author: TestUser, other: TestUser, admin: TestUser, closeStore: () => Promise<void>;

test.before(async () => {
  ({ imghost, site, client, sql, author, other, admin, close: closeStore } = await startStoreSite('mft', { imageHost: true }));
});
// Each test uploads more than a minute's allowance of one user (30): the count starts afresh.
test.before.each(async () => {
  await sql`delete from rate_limits`;
});
test.after(() => closeStore());

const json = (value: unknown) => JSON.stringify(value);
const manifest = (id: string, version: string, fields: Record<string, unknown> = {}) => json({ id, name: `Tool ${id}`, version, ...fields });
/** Uploads `files` as plugin `id`'s package; `version` the form's part, left out when undefined. */
const upload = (id: string, files: Record<string, string> | Buffer, version?: string, user = author): Promise<Answer> =>
  uploadVersion(site.url, id, { zip: Buffer.isBuffer(files) ? files : zipOf(files), version, changelog: 'x', order: ['file', 'version', 'changelog'] }, as(user));
const ownVersions = async (id: string) => (await client.get(`/apps/api/plugins/${id}/versions`, as(author))).body.versions as any[];
const keptOnImageHost = async (zip: Buffer) => (await fetch(`${imghost.url}/pkg/${createHash('sha256').update(zip).digest('hex')}/p.zip`, { method: 'HEAD' })).status;

async function approvedPlugin(id: string, fields: Record<string, unknown> = {}): Promise<void> {
  assert.is((await client.post('/apps/api/plugins', newPlugin(id, fields), as(author))).status, 201);
  assert.is((await client.post(`/apps/api/plugins/${id}/review`, { action: 'approve' }, as(admin))).status, 200);
}

async function approveUpdate(id: string): Promise<any> {
  const record = (await client.get(`/apps/api/plugins/${id}`, as(admin))).body.plugin;
  const answer = await client.post(`/apps/api/plugins/${id}/review`, { action: 'approve', revision: record.revision }, as(admin));
  assert.is(answer.status, 200, json(answer.body));
  return record;
}

test('manifests placed every way the launcher installs them are read, and the version part may be left out', async () => {
  await approvedPlugin('mft-placed');
  const cases: Array<{ what: string; files: Record<string, string>; version: string; path: string }> = [
    { what: 'plugin.json at the root', files: { 'plugin.json': manifest('mft-placed', '1.0.1'), 'main.py': 'print(1)' }, version: '1.0.1', path: 'plugin.json' },
    { what: 'in the one wrapper folder', files: { 'MyTool/plugin.json': manifest('mft-placed', '1.0.2'), 'MyTool/main.py': 'print(1)' }, version: '1.0.2', path: 'MyTool/plugin.json' },
    { what: 'cwplugin.json only', files: { 'cwplugin.json': manifest('mft-placed', '1.0.3'), 'main.py': 'print(1)' }, version: '1.0.3', path: 'cwplugin.json' },
    { what: 'cwplugin.json in the wrapper folder', files: { 'w/cwplugin.json': manifest('mft-placed', '1.0.4'), 'w/main.py': 'print(1)' }, version: '1.0.4', path: 'w/cwplugin.json' },
  ];
  for (const c of cases) {
    const answer = await upload('mft-placed', c.files);
    assert.is(answer.status, 201, `${c.what}: ${json(answer.body)}`);
    const version = answer.body.version;
    assert.is(version.version, c.version, c.what);
    assert.equal(version.manifest, {
      id: 'mft-placed', name: 'Tool mft-placed', version: c.version, author: '', description: '',
      entry: { python: 'main.py', process: null, qml_page: null }, permissions: [], min_launcher_version: null,
    }, c.what);
    assert.is(version.entryKind, 'python', c.what);
    assert.ok(version.download.endsWith(`/mft-placed-${c.version}.zip`), version.download);
  }
  // The same number in the form is accepted too.
  const given = await upload('mft-placed', { 'plugin.json': manifest('mft-placed', '1.0.5') }, '1.0.5');
  assert.is(given.status, 201, json(given.body));
});

test('manifests the launcher refuses, or would install as another plugin, are refused: 400 file with the reason, no version', async () => {
  await approvedPlugin('mft-refused');
  await approvedPlugin('mft-someone');
  const good = manifest('mft-refused', '2.0.0');
  const cases: Array<{ what: string; files: Record<string, string> | Buffer; error: RegExp }> = [
    { what: 'no manifest', files: { 'main.py': 'print(1)' }, error: /^The launcher would not install this package: no plugin\.json \(or cwplugin\.json\) in the package/ },
    { what: 'two levels down', files: { 'a/b/plugin.json': good, 'a/b/main.py': '' }, error: /"a\/b\/plugin\.json" is too deep/ },
    { what: 'both names at the root', files: { 'plugin.json': good, 'cwplugin.json': good }, error: /two manifests, "plugin\.json" and "cwplugin\.json"/ },
    { what: 'at the root and in the folder', files: { 'plugin.json': good, 'w/plugin.json': good }, error: /manifests at two levels/ },
    { what: 'larger than 64 KiB', files: { 'plugin.json': manifest('mft-refused', '2.0.0', { description: randomBytes(40 * 1024).toString('hex') }) }, error: /larger than 64 KiB/ },
    { what: 'not a JSON object', files: { 'plugin.json': '["mft-refused"]' }, error: /is not a JSON object \(it is an array\)/ },
    { what: 'not JSON', files: { 'plugin.json': '{id: mft-refused}' }, error: /is not valid JSON/ },
    { what: 'a byte order mark', files: buildZip([{ name: 'plugin.json', data: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(good)]) }]), error: /byte order mark/ },
    { what: 'no id', files: { 'plugin.json': json({ name: 'x', version: '2.0.0' }) }, error: /^plugin\.json has no "id"/ },
    { what: 'an id the launcher refuses', files: { 'plugin.json': manifest('mft refused!', '2.0.0') }, error: /"id" "mft refused!" is not 1 to 128 letters/ },
    { what: 'another plugin\'s id', files: { 'plugin.json': manifest('mft-someone', '2.0.0') }, error: /names the plugin "mft-someone", not "mft-refused": the launcher would install it as "mft-someone"/ },
    { what: 'the id in another case', files: { 'plugin.json': manifest('MFT-Refused', '2.0.0') }, error: /names the plugin "MFT-Refused", not "mft-refused"/ },
    { what: 'no name', files: { 'plugin.json': json({ id: 'mft-refused', version: '2.0.0' }) }, error: /has no "name"/ },
    { what: 'no version', files: { 'plugin.json': json({ id: 'mft-refused', name: 'x' }) }, error: /has no "version"/ },
  ];
  for (const c of cases) {
    const answer = await upload('mft-refused', c.files);
    assert.is(answer.status, 400, `${c.what}: ${json(answer.body)}`);
    assert.equal([answer.body.code, answer.body.field], ['VALIDATION_FAILED', 'file'], c.what);
    assert.match(answer.body.error, c.error, `${c.what}: ${answer.body.error}`);
  }
  assert.equal(await ownVersions('mft-refused'), [], 'nothing was inserted');
  assert.is((await upload('mft-refused', { 'plugin.json': good })).status, 201, 'no number was used');
});

test('a version part that is not the manifest\'s is 400 version, and the number stays free', async () => {
  await approvedPlugin('mft-number');
  const files = { 'plugin.json': manifest('mft-number', '3.1.0') };
  for (const order of [['version', 'file'], ['file', 'version']] as const) {
    const answer = await uploadVersion(site.url, 'mft-number', { zip: zipOf(files), version: '3.0.0', order: [...order] }, as(author));
    assert.is(answer.status, 400, json(answer.body));
    assert.equal([answer.body.code, answer.body.field], ['VALIDATION_FAILED', 'version'], order.join());
    assert.match(answer.body.error, /version "3\.0\.0" is not the package's: its manifest says "3\.1\.0"/);
  }
  assert.is((await upload('mft-number', zipOf(files))).status, 201);
  // The manifest's number once used: 409, as for the form's.
  const again = await upload('mft-number', { 'plugin.json': manifest('mft-number', '3.1.0', { description: 'other bytes' }) });
  assert.equal([again.status, again.body.field], [409, 'version']);
});

test('a credential in any real format is refused (400 file), naming the file and the kind, never the secret', async () => {
  await approvedPlugin('mft-secret');
  let n = 0;
  for (const sample of secretSamples()) {
    const files = { 'plugin.json': manifest('mft-secret', `0.0.${n++}`), 'config/settings.txt': sample.text };
    const zip = zipOf(files);
    const answer = await upload('mft-secret', zip);
    assert.is(answer.status, 400, `${sample.what}: ${json(answer.body)}`);
    assert.equal([answer.body.code, answer.body.field], ['VALIDATION_FAILED', 'file'], sample.what);
    assert.match(answer.body.error, new RegExp(`"config/settings\\.txt" holds what looks like a ${sample.kind}`), sample.what);
    // No run of 12 characters of the credential's text is in the answer.
    const text = json(answer.body);
    for (const token of sample.text.match(/[A-Za-z0-9_+/=-]{16,}/g) ?? []) assert.not.ok(text.includes(token.slice(4, 16)), `${sample.what}: ${text}`);
    assert.is(await keptOnImageHost(zip), 410, `${sample.what}: the refused file is deleted from the image host`);
  }
  assert.equal(await ownVersions('mft-secret'), []);
});

test('an author and administrators read the manifest, permissions, checks and entry kind; visitors do not', async () => {
  await approvedPlugin('mft-shape', { permissions: ['ui.home'] });
  const files = {
    'plugin.json': manifest('mft-shape', '1.1.0', { author: 'Ann', description: 'Does things', permissions: [' net.http ', 'ui.nav', 'net.http'], min_launcher_version: '27.2', entry: 'bin/tool.exe' }),
    // The smallest PE header: "MZ", and at the offset 0x3C gives (0x40), "PE\0\0".
    'bin/tool.exe': `MZ${'\u0000'.repeat(58)}@\u0000\u0000\u0000PE\u0000\u0000`,
  };
  const answer = await upload('mft-shape', files);
  assert.is(answer.status, 201, json(answer.body));
  const version = answer.body.version;
  assert.equal(version.manifest, {
    id: 'mft-shape', name: 'Tool mft-shape', version: '1.1.0', author: 'Ann', description: 'Does things',
    entry: { python: null, process: 'bin/tool.exe', qml_page: null }, permissions: ['net.http', 'ui.nav'], min_launcher_version: '27.2',
  });
  assert.equal(version.permissions, [{ id: 'net.http', risk: 'high' }, { id: 'ui.nav', risk: 'safe' }]);
  assert.is(version.entryKind, 'process');
  const codes = version.checks.map((check: any) => [check.code, check.level, check.file]);
  assert.ok(codes.some((c: any[]) => c[0] === 'native-executable' && c[1] === 'warn' && c[2] === 'bin/tool.exe'), json(codes));
  assert.ok(version.checks.some((check: any) => check.code === 'high-risk-permission' && /net\.http/.test(check.message)), json(codes));
  const added = version.checks.filter((check: any) => check.code === 'new-permission').map((check: any) => check.message);
  assert.equal(added.length, 2, 'the live version (an outside link) declared ui.home only');
  assert.is(version.warningCount, version.checks.filter((check: any) => check.level === 'warn').length);

  for (const [what, user] of [['the author', author], ['an administrator', admin]] as const) {
    const read = await client.get('/apps/api/plugins/mft-shape/versions/1.1.0', as(user));
    assert.is(read.status, 200, what);
    assert.equal(read.body.version.manifest, version.manifest, what);
    assert.equal(read.body.version.checks, version.checks, what);
    assert.equal(read.body.version.permissions, version.permissions, what);
  }
  // Once approved, visitors see the version without what the review is about.
  await approveUpdate('mft-shape');
  const seen = (await client.get('/apps/api/plugins/mft-shape/versions/1.1.0')).body.version;
  assert.equal(['manifest', 'permissions', 'checks', 'warningCount', 'entryKind'].filter((key) => key in seen), []);
  const byOther = (await client.get('/apps/api/plugins/mft-shape/versions/1.1.0', as(other))).body.version;
  assert.not.ok('checks' in byOther, 'nor do other users');
});

test('the review queue shows each item\'s warning count; the detail every check', async () => {
  await approvedPlugin('mft-queue');
  const files = { 'plugin.json': manifest('mft-queue', '1.0.1', { permissions: ['process.exec', 'fs.datapath'] }) };
  assert.is((await upload('mft-queue', files)).status, 201);
  const queue = (await client.get('/apps/api/plugins?scope=admin&update=pending&include=review&limit=100', as(admin))).body.plugins;
  const item = queue.find((plugin: any) => plugin.id === 'mft-queue');
  // Two high-risk permissions, both new against the live outside link (which declared none).
  assert.is(item.pendingUpdate.package.warningCount, 4);
  assert.is(item.pendingUpdate.package.checks, undefined, 'the queue carries the count, not the checks');
  const detail = (await client.get('/apps/api/plugins/mft-queue', as(admin))).body.plugin;
  assert.equal(detail.pendingUpdate.package.checks.map((check: any) => check.code), ['high-risk-permission', 'high-risk-permission', 'new-permission', 'new-permission']);
});

test('the plugin\'s permissions follow its live manifest; an outside link keeps the author\'s', async () => {
  await approvedPlugin('mft-perms', { permissions: ['ui.home'] });
  assert.equal((await client.get('/apps/api/plugins/mft-perms')).body.plugin.permissions, ['ui.home'], 'an outside link: the author\'s');
  const files = { 'plugin.json': manifest('mft-perms', '2.0.0', { hooks: { 'launch.before': 'main:go' }, contributes: { nav: [{ id: 'x' }] } }), 'main.py': '' };
  assert.is((await upload('mft-perms', files)).status, 201);
  // The author types something else meanwhile: the launcher grants what the package declares.
  assert.is((await client.patch('/apps/api/plugins/mft-perms', { permissions: ['ui.theme'] }, as(author))).status, 200);
  await approveUpdate('mft-perms');
  assert.equal((await client.get('/apps/api/plugins/mft-perms')).body.plugin.permissions, ['launch.hooks', 'ui.nav'], 'inferred, as the launcher infers them');
  // A later approval (an edit of the permissions) keeps them the manifest's.
  assert.is((await client.patch('/apps/api/plugins/mft-perms', { permissions: ['ui.theme'], description: 'new words' }, as(author))).status, 200);
  await approveUpdate('mft-perms');
  assert.equal((await client.get('/apps/api/plugins/mft-perms')).body.plugin.permissions, ['launch.hooks', 'ui.nav']);
  // An administrator's edit, which applies at once, too.
  assert.is((await client.patch('/apps/api/plugins/mft-perms', { permissions: ['ui.theme'] }, as(admin))).status, 200);
  assert.equal((await client.get('/apps/api/plugins/mft-perms')).body.plugin.permissions, ['launch.hooks', 'ui.nav']);
});

test('checks against the live version: new permissions, another entry kind, a name close to another author\'s plugin', async () => {
  await insertPlugin(sql, 'mft-minimap', other, 'approved', { name: 'Better Minimap' });
  await approvedPlugin('mft-live');
  assert.is((await upload('mft-live', { 'plugin.json': manifest('mft-live', '1.0.1', { permissions: ['ui.nav'] }), 'main.qml': '' })).status, 201);
  await approveUpdate('mft-live');
  const next = await upload('mft-live', { 'plugin.json': manifest('mft-live', '1.0.2', { name: 'Better Minimap!', permissions: ['ui.nav', 'ui.home'] }), 'main.py': '' });
  assert.is(next.status, 201, json(next.body));
  const messages = Object.fromEntries(next.body.version.checks.map((check: any) => [check.code, check.message]));
  assert.match(messages['new-permission'], /^Asks for ui\.home, which the live version does not have$/);
  assert.match(messages['entry-kind-changed'], /^Runs Python code inside the launcher, where the live version runs a QML page$/);
  assert.match(messages['similar-name'], /^The name "Better Minimap!" is close to the approved plugin "Better Minimap" \(mft-minimap\)$/);
  assert.not.ok('high-risk-permission' in messages);
});

test('a removal for malware blocks its files: an upload holding one is refused, a pending version holding one cannot go live', async () => {
  await approvedPlugin('mft-bad');
  await approvedPlugin('mft-copy');
  await approvedPlugin('mft-later');
  const payload = 'the same malicious bytes';
  assert.is((await upload('mft-bad', { 'plugin.json': manifest('mft-bad', '1.0.1'), 'lib/x.dat': payload, 'empty.txt': '' })).status, 201);
  // Another plugin's pending version holds the same file under another name.
  assert.is((await upload('mft-copy', { 'plugin.json': manifest('mft-copy', '1.0.1'), 'data/y.dat': payload, 'empty.txt': '' })).status, 201);
  assert.is((await client.request('DELETE', '/apps/api/plugins/mft-bad/versions/1.0.1', as(admin))).status, 200);

  const copy = (await client.get('/apps/api/plugins/mft-copy/versions/1.0.1', as(admin))).body.version;
  const blocked = copy.checks.filter((check: any) => check.code === 'blocked-file');
  assert.equal(blocked.map((check: any) => [check.level, check.file]), [['block', 'data/y.dat']], 'the empty file is not blocked');
  const record = (await client.get('/apps/api/plugins/mft-copy', as(admin))).body.plugin;
  const approval = await client.post('/apps/api/plugins/mft-copy/review', { action: 'approve', revision: record.revision }, as(admin));
  assert.is(approval.status, 409, json(approval.body));
  assert.match(approval.body.error, /A check blocks this version/);

  const zip = zipOf({ 'plugin.json': manifest('mft-later', '1.0.1'), 'z.dat': payload });
  const refused = await upload('mft-later', zip);
  assert.is(refused.status, 400, json(refused.body));
  assert.equal([refused.body.code, refused.body.field], ['VALIDATION_FAILED', 'file']);
  assert.match(refused.body.error, /"z\.dat" is byte for byte a file of a package an administrator removed as malware/);
  assert.equal(await ownVersions('mft-later'), []);
  assert.is(await keptOnImageHost(zip), 410);
});

test.run();
