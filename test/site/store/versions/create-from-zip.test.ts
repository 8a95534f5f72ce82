// A new plugin from its ZIP alone (issue 31): POST /apps/api/plugins as multipart
// with a `file` part and no outside link, both real services. The manifest gives
// the id, name, version, author, description and permissions, the form may set
// name, description, tags and pictures, the hosted file is the download, and the
// first version is pending with it; every refusal is the version upload's, a taken
// id 409, and nothing is half-written. JSON bodies work as before.
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../../src/db/pool.js';
import { secretSamples } from '../../../fixtures/secret-corpus.js';
import { multipartBody, type FormPart } from '../../../helpers/media.js';
import type { TestUser } from '../../../helpers/store-fixtures.js';
import type { TestServer } from '../../../helpers/servers.js';
import { startStoreSite } from '../../../helpers/store-site.js';
import { newPlugin, type StoreClient } from '../store-client.js';
import { zipOf } from './versions-client.js';

let imghost: TestServer, site: TestServer, client: StoreClient, sql: Sql;
let author: TestUser, admin: TestUser, closeStore: () => Promise<void>;

test.before(async () => {
  ({ imghost, site, client, sql, author, admin, close: closeStore } = await startStoreSite('cz', { imageHost: true }));
});
test.before.each(async () => {
  await sql`delete from rate_limits`;
});
test.after(() => closeStore());

const json = (value: unknown) => JSON.stringify(value);
const manifest = (id: string, version: string, fields: Record<string, unknown> = {}) =>
  json({ id, name: `Tool ${id}`, version, author: 'Zip Author', description: `About ${id}`, ...fields });
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** POST /apps/api/plugins as multipart: `fields` (a list repeats the part), then the ZIP. */
async function create(zip: Buffer | null, fields: Record<string, string | string[]> = {}, user: TestUser = author) {
  const parts: FormPart[] = Object.entries(fields).flatMap(([name, value]) => [value].flat().map((data) => ({ name, data })));
  if (zip) parts.push({ name: 'file', filename: 'plugin.zip', contentType: 'application/zip', data: zip });
  const { body, contentType } = multipartBody(parts);
  const response = await fetch(`${site.url}/apps/api/plugins`, { method: 'POST', headers: { cookie: user.cookie, 'content-type': contentType }, body: new Uint8Array(body) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}
const rowsOf = async (id: string) => {
  const [row] = await sql<Array<{ plugins: number; versions: number }>>`
    select (select count(*)::int from plugins where lower(id) = lower(${id})) as plugins,
           (select count(*)::int from plugin_versions where lower(plugin_id) = lower(${id})) as versions`;
  return row!;
};

test('a ZIP alone makes a pending plugin: the manifest\'s fields, the hosted file as its download, its first version pending', async () => {
  const zip = zipOf({ 'plugin.json': manifest('cz-alone', '1.2.0', { permissions: ['ui.nav', 'process.exec'], entry: 'main.py' }), 'main.py': 'print(1)' });
  const answer = await create(zip);
  assert.is(answer.status, 201, json(answer.body));
  const plugin = answer.body.plugin;
  assert.is(plugin.id, 'cz-alone');
  assert.is(plugin.name, 'Tool cz-alone');
  assert.is(plugin.version, '1.2.0');
  assert.is(plugin.author, 'Zip Author');
  assert.is(plugin.description, 'About cz-alone');
  assert.equal(plugin.permissions, ['ui.nav', 'process.exec']);
  assert.is(plugin.status, 'pending');
  assert.is(plugin.sha256, sha256(zip));
  assert.match(plugin.download, new RegExp(`/pkg/${sha256(zip)}/cz-alone-1\\.2\\.0\\.zip$`));
  assert.is(plugin.submitter, 'cz-author');
  assert.is(answer.body.version.version, '1.2.0');
  assert.is(answer.body.version.status, 'pending');
  assert.equal(answer.body.version.permissions, [{ id: 'ui.nav', risk: 'safe' }, { id: 'process.exec', risk: 'high' }]);
  assert.is(answer.body.version.entryKind, 'python');
  // The hosted file is there, and the plugin's versions list it.
  assert.is((await fetch(plugin.download, { method: 'HEAD' })).status, 200);
  const versions = (await client.get('/apps/api/plugins/cz-alone/versions', { cookie: author.cookie })).body.versions;
  assert.equal(versions.map((v: any) => [v.version, v.status, v.download]), [['1.2.0', 'pending', plugin.download]]);
  // An administrator approves it as any new plugin: it is live with its package.
  const approved = await client.post('/apps/api/plugins/cz-alone/review', { action: 'approve' }, { cookie: admin.cookie });
  assert.is(approved.status, 200, json(approved.body));
  const live = (await client.get('/apps/api/plugins/cz-alone')).body.plugin;
  assert.is(live.download, plugin.download);
  assert.is(live.entryKind, 'python');
});

test('the form sets name, description, long description, homepage, tags and pictures; the manifest the rest', async () => {
  const zip = zipOf({ 'Wrapped/plugin.json': manifest('cz-form', '0.3.0'), 'Wrapped/main.py': 'print(2)' });
  const answer = await create(zip, {
    name: 'Form Name',
    description: 'From the form',
    longDescription: '# Hello',
    url: 'https://example.com/cz',
    icon: 'https://example.com/icon.png',
    tags: ['maps', 'hud'],
    screenshots: ['https://example.com/1.png', json({ url: 'https://example.com/2.png', webpUrl: 'https://example.com/2.webp' })],
    changelog: '- first',
  });
  assert.is(answer.status, 201, json(answer.body));
  const plugin = (await client.get('/apps/api/plugins/cz-form', { cookie: author.cookie })).body.plugin;
  assert.is(plugin.name, 'Form Name');
  assert.is(plugin.description, 'From the form');
  assert.is(plugin.longDescription, '# Hello');
  assert.is(plugin.url, 'https://example.com/cz');
  assert.is(plugin.icon, 'https://example.com/icon.png');
  assert.equal(plugin.tags, ['maps', 'hud']);
  assert.equal(plugin.screenshots, ['https://example.com/1.png', { url: 'https://example.com/2.png', webpUrl: 'https://example.com/2.webp' }]);
  assert.is(plugin.author, 'Zip Author');
  assert.is(answer.body.version.changelog, '- first');
  // One tags part is split on commas, as a JSON string is; an empty name keeps the manifest's.
  const split = await create(zipOf({ 'plugin.json': manifest('cz-split', '1.0.0') }), { tags: 'a, b', name: '' });
  assert.is(split.status, 201, json(split.body));
  assert.equal(split.body.plugin.tags, ['a', 'b']);
  assert.is(split.body.plugin.name, 'Tool cz-split');
});

const refusals: Array<{ what: string; files?: Record<string, string>; zip?: Buffer; fields?: Record<string, string>; field: string; message: RegExp }> = [
  { what: 'no manifest', files: { 'main.py': 'print(1)' }, field: 'file', message: /plugin\.json/ },
  { what: 'two manifests at one level', files: { 'plugin.json': manifest('cz-two', '1.0.0'), 'cwplugin.json': manifest('cz-two', '1.0.0') }, field: 'file', message: /plugin\.json.*cwplugin\.json|cwplugin\.json.*plugin\.json/ },
  { what: 'a manifest that is not a JSON object', files: { 'plugin.json': '[1, 2]' }, field: 'file', message: /object/ },
  { what: 'no id', files: { 'plugin.json': json({ name: 'x', version: '1.0.0' }) }, field: 'file', message: /has no "id"/ },
  { what: 'an id the launcher refuses', files: { 'plugin.json': manifest('bad id!', '1.0.0') }, field: 'file', message: /is not 1 to 128/ },
  { what: 'an id too short for the store', files: { 'plugin.json': manifest('ab', '1.0.0') }, field: 'file', message: /3 to 128/ },
  { what: 'no name', files: { 'plugin.json': json({ id: 'cz-noname', version: '1.0.0' }) }, field: 'file', message: /has no "name"/ },
  { what: 'no version', files: { 'plugin.json': json({ id: 'cz-nover', name: 'x' }) }, field: 'file', message: /has no "version"/ },
  { what: 'a name the store cannot hold, not replaced by the form', files: { 'plugin.json': manifest('cz-longname', '1.0.0', { name: 'n'.repeat(101) }) }, field: 'file', message: /name.*the form's name may replace it/ },
  { what: 'a version part that is not the package\'s', files: { 'plugin.json': manifest('cz-version', '1.0.0') }, fields: { version: '2.0.0' }, field: 'version', message: /its manifest says "1\.0\.0"/ },
  { what: 'an id part that is not the package\'s', files: { 'plugin.json': manifest('cz-idpart', '1.0.0') }, fields: { id: 'cz-other' }, field: 'file', message: /names the plugin "cz-idpart"/ },
  { what: 'an outside link beside the ZIP', files: { 'plugin.json': manifest('cz-link', '1.0.0') }, fields: { download: 'https://github.com/a/b.zip' }, field: 'download', message: /manifest/ },
  { what: 'permissions typed in the form', files: { 'plugin.json': manifest('cz-perms', '1.0.0') }, fields: { permissions: 'ui.nav' }, field: 'permissions', message: /manifest/ },
  { what: 'a bad form field', files: { 'plugin.json': manifest('cz-badurl', '1.0.0') }, fields: { url: 'http://example.com' }, field: 'url', message: /https/ },
  { what: 'a file that is not a ZIP', zip: Buffer.from('not a zip at all'), field: 'file', message: /./ },
];
for (const c of refusals) {
  test(`refused, nothing written: ${c.what}`, async () => {
    const answer = await create(c.zip ?? zipOf(c.files!), c.fields ?? {});
    assert.is(answer.status, 400, json(answer.body));
    assert.is(answer.body.code, 'VALIDATION_FAILED');
    assert.is(answer.body.field, c.field);
    assert.match(answer.body.error, c.message);
    const [row] = await sql<Array<{ n: number }>>`select count(*)::int as n from plugins where id like 'cz-%' and id not in ('cz-alone', 'cz-form', 'cz-split')`;
    assert.is(row!.n, 0, 'no plugin row');
    const [versions] = await sql<Array<{ n: number }>>`select count(*)::int as n from plugin_versions where plugin_id like 'cz-%' and plugin_id not in ('cz-alone', 'cz-form', 'cz-split')`;
    assert.is(versions!.n, 0, 'no version row');
  });
}

test('line breaks a browser sends as CRLF are kept as typed (LF), as a JSON body and the edit page have them', async () => {
  const zip = zipOf({ 'plugin.json': manifest('cz-lines', '1.0.0'), 'main.py': 'print(5)' });
  const answer = await create(zip, { description: 'One\r\ntwo', longDescription: '# Title\r\n\r\n- a\r\n- b', changelog: '- one\r\n- two' });
  assert.is(answer.status, 201, json(answer.body));
  const plugin = (await client.get('/apps/api/plugins/cz-lines', { cookie: author.cookie })).body.plugin;
  assert.is(plugin.description, 'One\ntwo');
  assert.is(plugin.longDescription, '# Title\n\n- a\n- b');
  assert.is(answer.body.version.changelog, '- one\n- two');
});

test('no file part is 400 field "file"', async () => {
  const answer = await create(null, { name: 'x' });
  assert.is(answer.status, 400);
  assert.is(answer.body.field, 'file');
});

test('a credential in the package is refused (400 file) without the secret, and its file is not kept', async () => {
  const sample = secretSamples()[0]!;
  const zip = zipOf({ 'plugin.json': manifest('cz-secret', '1.0.0'), 'config/settings.txt': sample.text });
  const answer = await create(zip);
  assert.is(answer.status, 400, json(answer.body));
  assert.is(answer.body.field, 'file');
  assert.match(answer.body.error, /config\/settings\.txt/);
  assert.not.match(JSON.stringify(answer.body), /ghp_[A-Za-z0-9]{36}/, 'the secret is not in the answer');
  assert.equal(await rowsOf('cz-secret'), { plugins: 0, versions: 0 });
  assert.is((await fetch(`${imghost.url}/pkg/${sha256(zip)}/p.zip`, { method: 'HEAD' })).status, 410);
});

test('a taken id is 409 CONFLICT field "id", in any case, and the existing plugin is untouched', async () => {
  assert.is((await client.post('/apps/api/plugins', newPlugin('cz-taken'), { cookie: admin.cookie })).status, 201);
  for (const id of ['cz-taken', 'CZ-TAKEN']) {
    const answer = await create(zipOf({ 'plugin.json': manifest(id, '9.9.9') }));
    assert.is(answer.status, 409, json(answer.body));
    assert.is(answer.body.code, 'CONFLICT');
    assert.is(answer.body.field, 'id');
  }
  assert.equal(await rowsOf('cz-taken'), { plugins: 1, versions: 0 });
  const kept = (await client.get('/apps/api/plugins/cz-taken', { cookie: admin.cookie })).body.plugin;
  assert.is.not(kept.version, '9.9.9');
});

test('JSON bodies work exactly as before', async () => {
  const answer = await client.post('/apps/api/plugins', newPlugin('cz-json'), { cookie: author.cookie });
  assert.is(answer.status, 201, json(answer.body));
  assert.is(answer.body.plugin.id, 'cz-json');
  const wrongType = await fetch(`${site.url}/apps/api/plugins`, { method: 'POST', headers: { cookie: author.cookie, 'content-type': 'text/plain' }, body: '{}' });
  assert.is(wrongType.status, 415);
  const visitor = await create(zipOf({ 'plugin.json': manifest('cz-visitor', '1.0.0') }), {}, { ...author, cookie: '' });
  assert.is(visitor.status, 401);
});

test.run();
