// Reviews pin the bytes (issue 19): the revision an administrator read names the
// exact file that goes live; removal of shared bytes; two site processes agree.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../../src/db/pool.js';
import type { TestUser } from '../../../helpers/store-fixtures.js';
import type { TestServer } from '../../../helpers/servers.js';
import { as, startStoreSite } from '../../../helpers/store-site.js';
import { newPlugin, storeClient, type StoreClient } from '../store-client.js';
import { packageOf, uploadVersion } from './versions-client.js';

let site: TestServer, client: StoreClient, sql: Sql;
/** A second site process on the same database and image host (started with the first). */
let second: TestServer;
let secondClient: StoreClient;
let author: TestUser, admin: TestUser, closeStore: () => Promise<void>;

test.before(async () => {
  ({ sites: [site, second], client, sql, author, admin, close: closeStore } = await startStoreSite('verrev', { imageHost: true, sites: 2 }));
  secondClient = storeClient(second.url);
});
test.after(() => closeStore());

const upload = (url: string, id: string, version: string, files: Record<string, string>) =>
  uploadVersion(url, id, { zip: packageOf(id, version, files), version, changelog: version }, as(author));

async function approvedPlugin(id: string): Promise<void> {
  assert.is((await client.post('/apps/api/plugins', newPlugin(id), as(author))).status, 201);
  assert.is((await client.post(`/apps/api/plugins/${id}/review`, { action: 'approve' }, as(admin))).status, 200);
}

test('an author who uploads another version while the administrator reviews gets nothing live (stale revision: 409)', async () => {
  await approvedPlugin('verrev-toctou');
  const good = await upload(site.url, 'verrev-toctou', '1.1.0', { 'readme.txt': 'good' });
  assert.is(good.status, 201);
  const seen = (await client.get('/apps/api/plugins/verrev-toctou', as(admin))).body.plugin;
  assert.is(seen.pendingUpdate.package.sha256, good.body.version.sha256, 'the administrator sees the bytes');
  // Meanwhile, through the other site process, the author swaps in another file.
  const evil = await upload(second.url, 'verrev-toctou', '1.1.1', { 'readme.txt': 'evil' });
  assert.is(evil.status, 201);

  const stale = await client.post('/apps/api/plugins/verrev-toctou/review', { action: 'approve', revision: seen.revision }, as(admin));
  assert.is(stale.status, 409, JSON.stringify(stale.body));
  assert.equal([stale.body.code, stale.body.field], ['CONFLICT', 'revision']);
  const link = (await client.get('/apps/api/plugins/verrev-toctou/install-link')).body;
  assert.is(link.download, 'https://downloads.example.com/verrev-toctou.zip', 'nothing went live');
  assert.equal((await client.get('/apps/api/plugins/verrev-toctou/versions')).body.versions, []);

  // Read again: the administrator now approves what is there, and only that.
  const fresh = (await secondClient.get('/apps/api/plugins/verrev-toctou', as(admin))).body.plugin;
  assert.is(fresh.pendingUpdate.package.sha256, evil.body.version.sha256);
  assert.is((await client.post('/apps/api/plugins/verrev-toctou/review', { action: 'approve', revision: fresh.revision }, as(admin))).status, 200);
  assert.is((await secondClient.get('/apps/api/plugins/verrev-toctou/install-link')).body.sha256, evil.body.version.sha256);
  const states = (await secondClient.get('/apps/api/plugins/verrev-toctou/versions', as(author))).body.versions.map((v: any) => [v.version, v.status]);
  assert.equal(states, [['1.1.1', 'approved'], ['1.1.0', 'rejected']], 'the superseded version is rejected');
});

test('a pending update withdrawn while the administrator reviews draws a new revision: the stale rejection is 409, not the plugin taken down', async () => {
  await approvedPlugin('verrev-withdrawn');
  assert.is((await upload(site.url, 'verrev-withdrawn', '7.0.0', { 'readme.txt': 'seven' })).status, 201);
  assert.is((await client.patch('/apps/api/plugins/verrev-withdrawn', { featured: true }, as(admin))).status, 200);
  const seen = (await client.get('/apps/api/plugins/verrev-withdrawn', as(admin))).body.plugin;
  assert.is(seen.pendingUpdate.version, '7.0.0', 'the administrator reads an update');
  // The author withdraws the version, and with it the pending update, through the other process.
  assert.is((await secondClient.post('/apps/api/plugins/verrev-withdrawn/versions/7.0.0/withdraw', {}, as(author))).status, 200);
  const now = (await client.get('/apps/api/plugins/verrev-withdrawn', as(admin))).body.plugin;
  assert.is(now.pendingUpdate, null);
  assert.ok(BigInt(now.revision) > BigInt(seen.revision), `the revision moved on (${seen.revision} -> ${now.revision}), never back`);

  // "Reject the update" read against a plugin that no longer has one would take the plugin down.
  const stale = await client.post('/apps/api/plugins/verrev-withdrawn/review', { action: 'reject', reason: 'update not ok', revision: seen.revision }, as(admin));
  assert.is(stale.status, 409, JSON.stringify(stale.body));
  assert.equal([stale.body.code, stale.body.field], ['CONFLICT', 'revision']);
  assert.is((await client.get('/apps/api/plugins/verrev-withdrawn')).status, 200, 'still in the store');
});

test('two site processes agree on versions at once', async () => {
  await approvedPlugin('verrev-two');
  assert.equal((await secondClient.get('/apps/api/plugins/verrev-two/versions', as(author))).body.versions, []);
  assert.is((await upload(site.url, 'verrev-two', '2.0.0', { 'a.txt': 'a' })).status, 201);
  assert.equal((await secondClient.get('/apps/api/plugins/verrev-two/versions', as(author))).body.versions.map((v: any) => v.version), ['2.0.0']);
  const taken = await upload(second.url, 'verrev-two', '2.0.0', { 'a.txt': 'b' });
  assert.is(taken.status, 409);
  // Both at once: one number, one winner.
  const [a, b] = await Promise.all([upload(site.url, 'verrev-two', '3.0.0', { 'a.txt': 'c' }), upload(second.url, 'verrev-two', '3.0.0', { 'a.txt': 'd' })]);
  assert.equal([a.status, b.status].sort(), [201, 409]);
});

test('removing a version keeps the file while another live version has the same bytes', async () => {
  await approvedPlugin('verrev-share-a');
  await approvedPlugin('verrev-share-b');
  const a = await upload(site.url, 'verrev-share-a', '1.0.1', { 'same.txt': 'identical bytes' });
  const record = (await client.get('/apps/api/plugins/verrev-share-a', as(admin))).body.plugin;
  assert.is((await client.post('/apps/api/plugins/verrev-share-a/review', { action: 'approve', revision: record.revision }, as(admin))).status, 200);
  // A package names its plugin now (issue 31), so two plugins share bytes only from
  // before: plugin b is given a's version, live, as an older database may hold it.
  await sql`
    insert into plugin_versions (plugin_id, version, changelog, sha256, size, download, entry_count, files, status)
    select 'verrev-share-b', version, changelog, sha256, size, download, entry_count, files, 'approved'
      from plugin_versions where plugin_id = 'verrev-share-a' and version = '1.0.1'`;
  await sql`update plugins set version = '1.0.1', download = ${a.body.version.download}, sha256 = ${a.body.version.sha256} where id = 'verrev-share-b'`;
  assert.is((await client.request('DELETE', '/apps/api/plugins/verrev-share-a/versions/1.0.1', as(admin))).status, 200);
  assert.is((await fetch(a.body.version.download)).status, 200, 'plugin b still serves these bytes');
  assert.is((await client.request('DELETE', '/apps/api/plugins/verrev-share-b/versions/1.0.1', as(admin))).status, 200);
  assert.is((await fetch(a.body.version.download)).status, 410);
  // Both plugins went back to their external 1.0.0 (never hosted): unlisted, nothing to fall back on.
  assert.is((await client.get('/apps/api/plugins/verrev-share-b/install-link')).status, 404);
});

test('bytes removed for malware never go live after: a pending version of another plugin with them is refused on approval (409)', async () => {
  await approvedPlugin('verrev-malware-a');
  await approvedPlugin('verrev-malware-b');
  // The same malware file in two packages (each names its own plugin, so the ZIPs differ).
  const files = { 'bad.txt': 'the same malware' };
  const a = await upload(site.url, 'verrev-malware-a', '1.0.1', files);
  const readA = (await client.get('/apps/api/plugins/verrev-malware-a', as(admin))).body.plugin;
  assert.is((await client.post('/apps/api/plugins/verrev-malware-a/review', { action: 'approve', revision: readA.revision }, as(admin))).status, 200);
  const b = await upload(site.url, 'verrev-malware-b', '2.0.0', files);
  assert.is(b.status, 201);

  assert.is((await client.request('DELETE', '/apps/api/plugins/verrev-malware-a/versions/1.0.1', as(admin))).status, 200);
  assert.is((await fetch(a.body.version.download)).status, 410, 'no live version kept the bytes');
  const readB = (await secondClient.get('/apps/api/plugins/verrev-malware-b', as(admin))).body.plugin;
  const approval = await secondClient.post('/apps/api/plugins/verrev-malware-b/review', { action: 'approve', revision: readB.revision }, as(admin));
  assert.is(approval.status, 409, JSON.stringify(approval.body));
  assert.is(approval.body.code, 'CONFLICT');
  assert.match(approval.body.error, /removed/);
  assert.is((await client.get('/apps/api/plugins/verrev-malware-b/install-link')).body.download, 'https://downloads.example.com/verrev-malware-b.zip', 'nothing went live');
  // Rejecting it is what is left, and works.
  assert.is((await client.post('/apps/api/plugins/verrev-malware-b/review', { action: 'reject', reason: 'malware', revision: readB.revision }, as(admin))).status, 200);
});

test('an upload of bytes removed while the image host still took them is refused by the site (400 file), nothing inserted', async () => {
  await approvedPlugin('verrev-removed-late');
  const zip = packageOf('verrev-removed-late', '3.0.0', { 'late.txt': 'removed between the checks' });
  const { createHash } = await import('node:crypto');
  // As if a removal committed after the image host's own check of the bytes: only PostgreSQL knows yet.
  await sql`insert into removed_packages (sha256) values (${createHash('sha256').update(zip).digest('hex')})`;
  const refused = await uploadVersion(site.url, 'verrev-removed-late', { zip, version: '3.0.0', changelog: '' }, as(author));
  assert.is(refused.status, 400, JSON.stringify(refused.body));
  assert.equal([refused.body.code, refused.body.field], ['VALIDATION_FAILED', 'file']);
  assert.equal((await client.get('/apps/api/plugins/verrev-removed-late/versions', as(author))).body.versions, []);
  // The number was not used: another file may take it.
  assert.is((await upload(site.url, 'verrev-removed-late', '3.0.0', { 'good.txt': 'fine' })).status, 201);
});

test('a version\'s download is named <id>-<version>.zip whichever part of the form comes first', async () => {
  await approvedPlugin('verrev-name');
  const fileFirst = await uploadVersion(site.url, 'verrev-name', { zip: packageOf('verrev-name', '1.2.3', { 'a.txt': 'first' }), version: '1.2.3', changelog: '', order: ['file', 'version', 'changelog'] }, as(author));
  assert.is(fileFirst.status, 201, JSON.stringify(fileFirst.body));
  assert.ok(fileFirst.body.version.download.endsWith(`/pkg/${fileFirst.body.version.sha256}/verrev-name-1.2.3.zip`), fileFirst.body.version.download);
  assert.is((await fetch(fileFirst.body.version.download)).headers.get('content-disposition'), 'attachment; filename="verrev-name-1.2.3.zip"');
  const versionFirst = await upload(site.url, 'verrev-name', '1.2.4', { 'a.txt': 'second' });
  assert.ok(versionFirst.body.version.download.endsWith('/verrev-name-1.2.4.zip'), versionFirst.body.version.download);
});

/**
 * A detail as the queue's include=review lists it: packages without `files`,
 * `diff` and what the package says but its count of warnings (`diffCounts` and
 * `warningCount` stay).
 */
function asListed(detail: any): any {
  const summary = (pkg: any) => {
    if (!pkg) return pkg;
    const { files: _files, diff: _diff, manifest: _manifest, permissions: _permissions, entryKind: _entryKind, checks: _checks, ...rest } = pkg;
    return rest;
  };
  return { ...detail, package: summary(detail.package), pendingUpdate: detail.pendingUpdate && { ...detail.pendingUpdate, package: summary(detail.pendingUpdate.package) } };
}

test('the review queue with include=review carries each plugin as its detail shows it, packages as summaries (one answer, not one per plugin)', async () => {
  await approvedPlugin('verrev-queue-a');
  await approvedPlugin('verrev-queue-b');
  assert.is((await upload(site.url, 'verrev-queue-a', '1.0.0', { 'a.txt': 'a' })).status, 201);
  assert.is((await upload(site.url, 'verrev-queue-b', '1.0.0', { 'b.txt': 'b', 'c.txt': 'c' })).status, 201);
  const cases = [
    { what: 'updates queue', path: '/apps/api/plugins?scope=admin&update=pending&include=review&limit=100' },
    { what: 'pending plugins', path: '/apps/api/plugins?scope=admin&status=pending&include=review&limit=100' },
  ];
  for (const { what, path } of cases) {
    const listed = await client.get(path, as(admin));
    assert.is(listed.status, 200, what);
    for (const plugin of listed.body.plugins) {
      const detail = (await client.get(`/apps/api/plugins/${plugin.id}`, as(admin))).body.plugin;
      assert.equal(plugin, asListed(detail), `${what}: ${plugin.id} as its detail`);
    }
  }
  const queue = (await client.get(cases[0]!.path, as(admin))).body.plugins;
  const b = queue.find((plugin: any) => plugin.id === 'verrev-queue-b');
  assert.is(b.pendingUpdate.package.entryCount, 3, 'two files and plugin.json');
  assert.is(b.pendingUpdate.package.diffCounts, null, 'the live version is not hosted');
  assert.equal(Object.keys(b.pendingUpdate.package).filter((key) => key === 'files' || key === 'diff'), []);
  assert.type(b.longDescription, 'string');
  const refused = [
    { what: 'without a scope', path: '/apps/api/plugins?include=review', field: 'include' },
    { what: 'more than 100 a page', path: '/apps/api/plugins?scope=admin&include=review&limit=101', field: 'limit' },
  ];
  for (const { what, path, field } of refused) {
    const answer = await client.get(path, as(admin));
    assert.is(answer.status, 400, what);
    assert.is(answer.body.field, field, what);
  }
});

// Defect: include=review put each plugin's package files (up to 1,000 long names),
// its pending update's and their diff in every record: ~4 MB a plugin, a page of 100
// too big to keep (rebuilt per request). The list now carries counts; the files
// come from one plugin's detail.
test('include=review records carry no file lists: a queue of ZIPs with 400 long names each stays small', async () => {
  const many = (tag: string) => Object.fromEntries(Array.from({ length: 400 }, (_, n) => [`assets/${'deep/'.repeat(20)}${tag}-${String(n).padStart(4, '0')}.json`, String(n)]));
  for (const id of ['verrev-big-a', 'verrev-big-b']) {
    await approvedPlugin(id);
    assert.is((await upload(site.url, id, '1.0.0', many(id))).status, 201);
  }
  const listed = await client.get('/apps/api/plugins?scope=admin&update=pending&include=review&limit=100', as(admin));
  assert.is(listed.status, 200);
  const big = listed.body.plugins.filter((plugin: any) => plugin.id.startsWith('verrev-big-'));
  assert.is(big.length, 2);
  for (const plugin of big) {
    assert.is(plugin.pendingUpdate.package.entryCount, 401);
    assert.is(plugin.pendingUpdate.package.files, undefined, plugin.id);
    assert.ok(JSON.stringify(plugin).length < 8 * 1024, `${plugin.id}: ${JSON.stringify(plugin).length} bytes`);
    const detail = (await client.get(`/apps/api/plugins/${plugin.id}`, as(admin))).body.plugin;
    assert.is(detail.pendingUpdate.package.files.length, 401, 'the detail has them');
  }
});

test.run();
