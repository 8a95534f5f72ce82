// Plugin versions (issue 19) through both real services: a version's ZIP streams
// through the site to an image host started here; its life (pending, approved and
// live in the list, the manifest and the install link, withdrawn, removed and 410)
// and the numbers never reused.
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../../src/db/pool.js';
import type { TestUser } from '../../../helpers/store-fixtures.js';
import type { TestServer } from '../../../helpers/servers.js';
import { as, startStoreSite } from '../../../helpers/store-site.js';
import { newPlugin, type StoreClient } from '../store-client.js';
import { packageOf, uploadVersion } from './versions-client.js';
import { releaseVersion, reserveVersion } from '../../../../src/services/site/store/versions/version-writes.js';
import { runNamed } from '../../../../src/db/queries.js';

let imghost: TestServer, site: TestServer, client: StoreClient, sql: Sql;
let author: TestUser, other: TestUser, admin: TestUser, closeStore: () => Promise<void>;

test.before(async () => {
  ({ imghost, site, client, sql, author, other, admin, close: closeStore } = await startStoreSite('ver', { imageHost: true }));
});
test.after(() => closeStore());

const upload = (id: string, version: string, files: Record<string, string>, user = author, changelog = `## ${version}\n- changes`) =>
  uploadVersion(site.url, id, { zip: packageOf(id, version, files), version, changelog }, { cookie: user.cookie });
const review = (id: string, body: Record<string, unknown>) => client.post(`/apps/api/plugins/${id}/review`, body, as(admin));
const versions = async (id: string, user?: TestUser) => (await client.get(`/apps/api/plugins/${id}/versions`, user ? as(user) : {})).body.versions as any[];

async function approvedPlugin(id: string): Promise<void> {
  assert.is((await client.post('/apps/api/plugins', newPlugin(id), as(author))).status, 201);
  assert.is((await review(id, { action: 'approve' })).status, 200);
}

async function approveUpdate(id: string): Promise<void> {
  const record = (await client.get(`/apps/api/plugins/${id}`, as(admin))).body.plugin;
  const answer = await review(id, { action: 'approve', revision: record.revision });
  assert.is(answer.status, 200, JSON.stringify(answer.body));
}

test('a version goes pending, then live everywhere a launcher looks, then back off', async () => {
  await approvedPlugin('ver-life');
  const first = await upload('ver-life', '2.0.0', { 'main.py': 'print(2)' });
  assert.is(first.status, 201, JSON.stringify(first.body));
  const v2 = first.body.version;
  assert.is(v2.status, 'pending');
  assert.is(v2.version, '2.0.0');
  assert.match(v2.sha256, /^[0-9a-f]{64}$/);
  assert.is(v2.entryCount, 2);
  assert.ok(v2.download.startsWith(`${imghost.url}/pkg/${v2.sha256}/`), v2.download);
  assert.ok(typeof v2.createdAt === 'string' && v2.size > 0);

  // Pending: visitors see no version and the old download; the author sees it pending.
  assert.equal(await versions('ver-life'), []);
  assert.equal((await versions('ver-life', author)).map((v) => [v.version, v.status]), [['2.0.0', 'pending']]);
  assert.is((await client.get('/apps/api/plugins/ver-life/install-link')).body.download, 'https://downloads.example.com/ver-life.zip');
  assert.is((await client.get('/apps/api/plugins/ver-life/versions/2.0.0')).status, 404);
  const record = (await client.get('/apps/api/plugins/ver-life', as(admin))).body.plugin;
  assert.is(record.pendingUpdate.version, '2.0.0');
  assert.is(record.pendingUpdate.sha256, v2.sha256);
  assert.equal(record.pendingUpdate.package.files.map((f: any) => f.name), ['plugin.json', 'main.py']);
  assert.is(record.pendingUpdate.package.diff, null, 'the live version is not hosted: nothing to compare with');

  await approveUpdate('ver-life');
  const link = (await client.get('/apps/api/plugins/ver-life/install-link')).body;
  assert.is(link.download, v2.download);
  assert.is(link.sha256, v2.sha256);
  assert.ok(link.install_url.endsWith(`&sha256=${v2.sha256}`), link.install_url);
  assert.is(link.propose.sha256, v2.sha256);
  const manifest = (await client.get('/apps/api/plugins/ver-life/manifest.json')).body;
  assert.equal([manifest.version, manifest.download], ['2.0.0', v2.download]);
  const listed = (await client.get('/apps/api/plugins?limit=100')).body.plugins.find((p: any) => p.id === 'ver-life');
  assert.equal([listed.version, listed.download, listed.sha256], ['2.0.0', v2.download, v2.sha256]);
  assert.equal((await versions('ver-life')).map((v) => [v.version, v.status]), [['2.0.0', 'approved']]);
  const one = (await client.get('/apps/api/plugins/ver-life/versions/2.0.0')).body.version;
  assert.equal(one.files, [{ name: 'plugin.json', size: one.files[0].size, crc32: one.files[0].crc32 }, { name: 'main.py', size: 8, crc32: one.files[1].crc32 }]);
  assert.match(one.changelogTree[0][0], /^h[2-6]$/, 'the changelog is read as Markdown');
  const bytes = await fetch(v2.download);
  assert.is(bytes.status, 200);
  assert.is(bytes.headers.get('content-type'), 'application/zip');

  // A second version, with a file list to compare.
  const third = await upload('ver-life', '3.0.0', { 'extra.txt': 'new' });
  assert.is(third.status, 201);
  const pending = (await client.get('/apps/api/plugins/ver-life', as(admin))).body.plugin.pendingUpdate.package;
  assert.equal(pending.diff.added.map((f: any) => f.name), ['extra.txt']);
  assert.equal(pending.diff.removed.map((f: any) => f.name), ['main.py']);
  assert.equal(pending.diff.changed.map((f: any) => f.name), ['plugin.json']);
  await approveUpdate('ver-life');
  assert.equal((await versions('ver-life')).map((v) => v.version), ['3.0.0', '2.0.0'], 'newest first');

  // Withdrawn (the author): the plugin goes back to 2.0.0; visitors no longer see 3.0.0.
  const withdrawn = await client.post('/apps/api/plugins/ver-life/versions/3.0.0/withdraw', undefined, as(author));
  assert.is(withdrawn.status, 200, JSON.stringify(withdrawn.body));
  assert.is(withdrawn.body.version.status, 'withdrawn');
  assert.is((await client.get('/apps/api/plugins/ver-life/install-link')).body.download, v2.download);
  assert.equal((await versions('ver-life')).map((v) => v.version), ['2.0.0']);
  assert.equal((await versions('ver-life', author)).map((v) => [v.version, v.status]), [['3.0.0', 'withdrawn'], ['2.0.0', 'approved']]);
  assert.is((await fetch(third.body.version.download)).status, 200, 'a withdrawn file stays for those who have it');

  // The only version left: withdrawn too, the plugin has nothing approved to carry and leaves the store.
  const only = await client.post('/apps/api/plugins/ver-life/versions/2.0.0/withdraw', undefined, as(author));
  assert.is(only.status, 200, JSON.stringify(only.body));
  assert.is(only.body.version.status, 'withdrawn');
  assert.is((await client.get('/apps/api/plugins/ver-life/install-link')).status, 404, 'no version left: unlisted');
  assert.is((await client.get('/apps/api/plugins/ver-life', as(author))).body.plugin.status, 'rejected');
  assert.is((await fetch(v2.download)).status, 200, 'a withdrawn file stays for those who have it');

  // Removed (an administrator, malware): the file answers 410.
  assert.is((await client.request('DELETE', '/apps/api/plugins/ver-life/versions/2.0.0', as(author))).status, 403);
  const removed = await client.request('DELETE', '/apps/api/plugins/ver-life/versions/2.0.0', as(admin));
  assert.is(removed.status, 200, JSON.stringify(removed.body));
  assert.equal(removed.body, { success: true });
  assert.is((await fetch(v2.download)).status, 410);
  assert.is((await client.get('/apps/api/plugins/ver-life/install-link')).status, 404, 'still unlisted');
  assert.equal((await versions('ver-life', admin)).map((v) => [v.version, v.status]), [['3.0.0', 'withdrawn'], ['2.0.0', 'removed']]);
});

test('withdrawing the only version a plugin has takes it out of the store until a new version is approved', async () => {
  // One hosted version, live: what a launcher author tries first.
  await approvedPlugin('ver-sole');
  assert.is((await upload('ver-sole', '1.0.0', { 'a.txt': 'sole' })).status, 201);
  await approveUpdate('ver-sole');
  const notices = async () => (await sql<Array<{ n: number }>>`select count(*)::int as n from notifications where plugin_id = 'ver-sole'`)[0]!.n;
  const before = await notices();
  const withdrawn = await client.post('/apps/api/plugins/ver-sole/versions/1.0.0/withdraw', undefined, as(author));
  assert.is(withdrawn.status, 200, JSON.stringify(withdrawn.body));
  assert.equal([withdrawn.body.success, withdrawn.body.version.version, withdrawn.body.version.status], [true, '1.0.0', 'withdrawn']);
  assert.is((await client.get('/apps/api/plugins/ver-sole')).status, 404, 'visitors no longer see it');
  assert.equal(await versions('ver-sole', admin).then((all) => all.map((v) => [v.version, v.status])), [['1.0.0', 'withdrawn']]);
  const record = (await client.get('/apps/api/plugins/ver-sole', as(author))).body.plugin;
  assert.is(record.status, 'rejected');
  assert.match(record.review.reason, /withdrawn by its author/);
  assert.is(await notices(), before, 'the author is not told of their own withdrawal');

  // Defect (black-box check, 26 Nov): approving the rejected plugin, or an edit that
  // reopens it and then an approval, put the withdrawn version back in the store.
  const direct = await client.post('/apps/api/plugins/ver-sole/review', { action: 'approve' }, as(admin));
  assert.is(direct.status, 409, JSON.stringify(direct.body));
  assert.match(direct.body.error, /withdrawn/);
  assert.is((await client.patch('/apps/api/plugins/ver-sole', { description: 'typo fixed' }, as(author))).status, 200);
  assert.is((await client.get('/apps/api/plugins/ver-sole', as(author))).body.plugin.status, 'pending', 'the edit reopens it');
  assert.is((await client.post('/apps/api/plugins/ver-sole/review', { action: 'approve' }, as(admin))).status, 409);
  assert.is((await client.get('/apps/api/plugins/ver-sole')).status, 404, 'still out of the store');
  assert.is((await client.get('/apps/api/plugins/ver-sole/install-link')).status, 404);

  // A new version reopens it; once approved it is live again.
  assert.is((await upload('ver-sole', '1.1.0', { 'a.txt': 'again' })).status, 201);
  assert.is((await client.get('/apps/api/plugins/ver-sole', as(author))).body.plugin.status, 'pending');
  await approveUpdate('ver-sole');
  assert.is((await client.get('/apps/api/plugins/ver-sole')).body.plugin.version, '1.1.0');

  // A plugin not yet approved whose submitted version is withdrawn: the submission is taken back.
  assert.is((await client.post('/apps/api/plugins', newPlugin('ver-unseen'), as(author))).status, 201);
  assert.is((await upload('ver-unseen', '2.0.0', { 'a.txt': 'unseen' })).status, 201);
  assert.is((await client.post('/apps/api/plugins/ver-unseen/versions/2.0.0/withdraw', undefined, as(author))).status, 200);
  assert.is((await client.get('/apps/api/plugins/ver-unseen', as(author))).body.plugin.status, 'rejected');

  // An administrator's withdrawal of an author's only version tells the author.
  await approvedPlugin('ver-told');
  assert.is((await upload('ver-told', '1.0.0', { 'a.txt': 'told' })).status, 201);
  await approveUpdate('ver-told');
  assert.is((await client.post('/apps/api/plugins/ver-told/versions/1.0.0/withdraw', undefined, as(admin))).status, 200);
  const told = await sql<Array<{ kind: string }>>`select kind from notifications where plugin_id = 'ver-told' and user_id = ${author.id}`;
  assert.ok(told.some((row) => row.kind === 'review.rejected'), JSON.stringify(told));
});

test('a changelog a browser sends with CRLF line breaks is kept as typed (LF)', async () => {
  await approvedPlugin('ver-lines');
  const answer = await upload('ver-lines', '1.1.0', { 'a.txt': 'lines' }, author, '## Fixes\r\n\r\n- one\r\n- two');
  assert.is(answer.status, 201, JSON.stringify(answer.body));
  assert.is(answer.body.version.changelog, '## Fixes\n\n- one\n- two');
});

test('a version number is never used twice, not even after a withdrawal', async () => {
  await approvedPlugin('ver-numbers');
  assert.is((await upload('ver-numbers', '1.1.0', { 'a.txt': 'a' })).status, 201);
  const again = await upload('ver-numbers', '1.1.0', { 'a.txt': 'b' });
  assert.is(again.status, 409);
  assert.equal([again.body.code, again.body.field], ['CONFLICT', 'version']);
  assert.is((await client.post('/apps/api/plugins/ver-numbers/versions/1.1.0/withdraw', undefined, as(author))).status, 200);
  const reused = await upload('ver-numbers', '1.1.0', { 'a.txt': 'c' }, author);
  assert.is(reused.status, 409);
  // The file after the fields: the number is still checked at insert.
  const late = await uploadVersion(site.url, 'ver-numbers', { zip: packageOf('ver-numbers', '1.1.0', { 'a.txt': 'd' }), version: '1.1.0', order: ['file', 'version'] }, as(author));
  assert.is(late.status, 409);
  assert.is(late.body.field, 'version');
  // The withdrawn update left the pending update.
  assert.is((await client.get('/apps/api/plugins/ver-numbers', as(author))).body.plugin.pendingUpdate, null);
});

// The defect: with the file part before the `version` field, the file was relayed and
// stored on the image host before the number was checked, and kept after the 409.
const keptOnImageHost = async (zip: Buffer) => (await fetch(`${imghost.url}/pkg/${createHash('sha256').update(zip).digest('hex')}/p.zip`, { method: 'HEAD' })).status;

test('orphan package file: a refused version sent file first keeps nothing on the image host', async () => {
  await approvedPlugin('ver-orphan');
  assert.is((await upload('ver-orphan', '1.1.0', { 'a.txt': 'a' })).status, 201);
  const cases = [
    { what: 'a number already used', files: { 'a.txt': 'orphan-used' }, version: '1.1.0', changelog: 'x', user: author, status: 409, field: 'version' },
    { what: 'a changelog too long', files: { 'a.txt': 'orphan-long' }, version: '1.2.0', changelog: 'x'.repeat(10_001), user: author, status: 400, field: 'changelog' },
    { what: 'an empty version', files: { 'a.txt': 'orphan-empty' }, version: ' ', changelog: 'x', user: author, status: 400, field: 'version' },
  ];
  for (const c of cases) {
    const zip = packageOf('ver-orphan', c.version, c.files);
    const answer = await uploadVersion(site.url, 'ver-orphan', { zip, version: c.version, changelog: c.changelog, order: ['file', 'changelog', 'version'] }, as(c.user));
    assert.is(answer.status, c.status, `${c.what}: ${JSON.stringify(answer.body)}`);
    assert.is(answer.body.field, c.field, c.what);
    assert.is(await keptOnImageHost(zip), 404, `${c.what}: the file is not kept`);
  }
  // The same form with a free number is stored: the check above looks where the file would be.
  const zip = packageOf('ver-orphan', '1.3.0', { 'a.txt': 'orphan-free' });
  assert.is((await uploadVersion(site.url, 'ver-orphan', { zip, version: '1.3.0', changelog: 'x', order: ['file', 'version'] }, as(author))).status, 201);
  assert.is(await keptOnImageHost(zip), 200);
});

test('orphan package file: uploads racing for one new number store only the file of the one that gets it', async () => {
  // Each form passes the checks made before its file is whole; the number is held
  // by whichever checks last first (sql/007). The others must be refused before the
  // image host keeps their file, not after.
  await approvedPlugin('ver-race');
  const zips = Array.from({ length: 6 }, (_, i) => packageOf('ver-race', '2.0.0', { 'a.txt': `race-${i}` }));
  const answers = await Promise.all(zips.map((zip) => uploadVersion(site.url, 'ver-race', { zip, version: '2.0.0', changelog: 'x' }, as(author))));
  const statuses = answers.map((answer) => answer.status);
  assert.is(statuses.filter((status) => status === 201).length, 1, statuses.join(', '));
  assert.is(statuses.filter((status) => status === 409).length, zips.length - 1, statuses.join(', '));
  const kept = await Promise.all(zips.map((zip) => keptOnImageHost(zip)));
  assert.equal(kept, statuses.map((status) => (status === 201 ? 200 : 404)));
  assert.is((await sql`select count(*)::int as n from version_reservations where plugin_id = 'ver-race'`)[0]!.n, 0, 'no hold is left');
});

test('a version number held by another upload is refused; a hold whose process ended, or an upload whose file was refused, frees it', async () => {
  await approvedPlugin('ver-hold');
  await sql`insert into version_reservations (plugin_id, version, expires_at) values ('ver-hold', '1.0.0', now() + interval '1 minute'), ('ver-hold', '2.0.0', now() - interval '1 second')`;
  const held = packageOf('ver-hold', '1.0.0', { 'a.txt': 'held' });
  const refused = await uploadVersion(site.url, 'ver-hold', { zip: held, version: '1.0.0', changelog: 'x', order: ['file', 'version'] }, as(author));
  assert.is(refused.status, 409);
  assert.is(refused.body.field, 'version');
  assert.is(await keptOnImageHost(held), 404);
  // Its hold expired (the process that took it ended before its insert).
  assert.is((await upload('ver-hold', '2.0.0', { 'a.txt': 'expired hold' })).status, 201);
  // A file the image host refuses lets go of the number it held.
  const notZip = await uploadVersion(site.url, 'ver-hold', { zip: Buffer.from('not a zip at all'), version: '3.0.0', changelog: 'x' }, as(author));
  assert.is(notZip.status, 400);
  assert.is(notZip.body.field, 'file');
  assert.is((await upload('ver-hold', '3.0.0', { 'a.txt': 'after a refused file' })).status, 201);
  assert.equal(
    (await sql`select version from version_reservations where plugin_id = 'ver-hold' order by version`).map((row) => row.version),
    ['1.0.0'],
  );
});

test('an upload that fails lets go of its own hold of a number, never of a later upload\'s that took it over', async () => {
  await approvedPlugin('ver-takeover');
  const user = { id: author.id, username: author.username, avatar: '', admin: false };
  const first = await reserveVersion(sql, 'ver-takeover', user, '1.0.0');
  // Its process ended without an insert: the hold expires and another upload takes the number.
  await sql`update version_reservations set expires_at = now() - interval '1 second' where plugin_id = 'ver-takeover'`;
  const second = await reserveVersion(sql, 'ver-takeover', user, '1.0.0');
  const holds = async () => (await sql`select count(*)::int as n from version_reservations where plugin_id = 'ver-takeover'`)[0]!.n;
  await releaseVersion(sql, first);
  assert.is(await holds(), 1, 'the later hold stays');
  await releaseVersion(sql, second);
  assert.is(await holds(), 0);
});

test('taking a number never waits for a lock another transaction holds on an old hold it clears (two at once would deadlock)', async () => {
  await approvedPlugin('ver-clear-a');
  await approvedPlugin('ver-clear-b');
  await sql`insert into version_reservations (plugin_id, version, expires_at) values ('ver-clear-a', '1.0.0', now() - interval '2 hours'), ('ver-clear-b', '1.0.0', now() - interval '2 hours')`;
  let locked!: () => void;
  let finish!: () => void;
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const finished = new Promise<void>((resolve) => (finish = resolve));
  // Another upload's transaction, taking over the first old hold, not yet committed.
  const other = sql.begin(async (t) => {
    await t`select 1 from version_reservations where plugin_id = 'ver-clear-a' for update`;
    locked();
    await finished;
  });
  await lockTaken;
  try {
    const taken = await sql.begin(async (t) => {
      await t`set local lock_timeout = '1s'`;
      return runNamed(t as unknown as Sql, 'store/versions/reserve-version', { plugin_id: 'ver-clear-b', version: '1.0.0', hold_seconds: 120 });
    });
    assert.is(taken.length, 1);
  } finally {
    finish();
    await other;
  }
  assert.equal((await sql`select plugin_id from version_reservations where plugin_id like 'ver-clear-%' order by plugin_id`).map((row) => row.plugin_id), ['ver-clear-a', 'ver-clear-b']);
});

test('a withdrawn or rejected pending version leaves the update; only the author and administrators upload', async () => {
  await approvedPlugin('ver-refused');
  assert.is((await upload('ver-refused', '9.0.0', { 'a.txt': 'a' }, other)).status, 403);
  assert.is((await uploadVersion(site.url, 'ver-refused', { zip: packageOf('ver-refused', '9.0.0', { 'a.txt': 'a' }), version: '9.0.0' }, {})).status, 401);
  const notZip = await uploadVersion(site.url, 'ver-refused', { zip: Buffer.from('not a zip at all'), version: '9.0.0' }, as(author));
  assert.is(notZip.status, 400);
  assert.equal([notZip.body.code, notZip.body.field], ['VALIDATION_FAILED', 'file']);
  assert.is((await upload('ver-refused', '9.0.0', { 'a.txt': 'a' })).status, 201, 'the refused file used no number');
  const rejected = await review('ver-refused', { action: 'reject', reason: 'no' });
  assert.is(rejected.status, 200);
  assert.equal((await versions('ver-refused', author)).map((v) => [v.version, v.status]), [['9.0.0', 'rejected']]);
});

test('visitors never see a version of a plugin they may not see', async () => {
  assert.is((await client.post('/apps/api/plugins', newPlugin('ver-hidden'), as(author))).status, 201);
  const first = await upload('ver-hidden', '0.1.0', { 'a.txt': 'a' });
  assert.is(first.status, 201);
  assert.is((await client.get('/apps/api/plugins/ver-hidden/versions')).status, 404);
  assert.is((await client.get('/apps/api/plugins/ver-hidden/versions', as(other))).status, 404);
  assert.is((await client.get('/apps/api/plugins/ver-hidden/versions/0.1.0', as(other))).status, 404);
  // A plugin not yet approved carries its uploaded version; its approval makes it live.
  const record = (await client.get('/apps/api/plugins/ver-hidden', as(admin))).body.plugin;
  assert.is(record.version, '0.1.0');
  assert.is(record.package.sha256, first.body.version.sha256);
  assert.is((await review('ver-hidden', { action: 'approve', revision: record.revision })).status, 200);
  assert.equal((await versions('ver-hidden')).map((v) => [v.version, v.status]), [['0.1.0', 'approved']]);
});

test('an update that drops the hash of a hosted file still gives launchers the hash to verify', async () => {
  await approvedPlugin('ver-nohash');
  const up = await upload('ver-nohash', '1.5.0', { 'a.txt': 'a' });
  assert.is(up.status, 201);
  assert.is((await client.patch('/apps/api/plugins/ver-nohash', { sha256: null }, as(author))).status, 200);
  await approveUpdate('ver-nohash');
  const link = (await client.get('/apps/api/plugins/ver-nohash/install-link')).body;
  assert.is(link.download, up.body.version.download);
  assert.is(link.sha256, up.body.version.sha256);
  assert.is(link.propose.sha256, up.body.version.sha256);
  assert.ok(link.install_url.endsWith(`&sha256=${up.body.version.sha256}`), link.install_url);
  const check = await client.post('/apps/api/updates', { plugins: [{ id: 'ver-nohash', version: '1.0.0' }] });
  assert.is(check.body.updates[0].latest.sha256, up.body.version.sha256);
});

test.run();
