// Package checks of outside download links (issue 33), end to end without the
// internet: a running site fetches https://files.test:PORT/... through the test
// CONNECT proxy (HTTPS_PROXY) trusting the test CA (NODE_EXTRA_CA_CERTS), streams
// the bytes to a real image host's inspection, and shows the result on the record;
// approval pins the checked hash or is refused; the watch notices drift.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { closeTestSql, startTestImghost, startTestSite, testSql, type TestServer } from '../../../helpers/servers.js';
import { startConnectProxy, type ConnectProxy } from '../../../helpers/connect-proxy.js';
import { startFileServer, type FileServer } from '../../../helpers/https-files.js';
import { testCaPath } from '../../../helpers/tls-fixtures.js';
import { buildZip } from '../../../helpers/zip-writer.js';
import { testUser, type TestUser } from '../../../helpers/store-fixtures.js';
import { newPlugin, storeClient, type StoreClient } from '../store-client.js';
import { startRecheckSchedule } from '../../../../src/services/site/store/package-checks/recheck-schedule.js';
import { testLogger } from '../../../helpers/servers.js';

const MAX_BYTES = 1024 * 1024;
// Short, for the stalling server; long enough for a loaded machine to fetch and inspect a small file.
const TIME_LIMIT_MS = 4000;

let files: FileServer;
let proxy: ConnectProxy;
let imghost: TestServer;
let site: TestServer;
let client: StoreClient;
let author: TestUser;
let admin: TestUser;

const zip = (id: string, extra = '') =>
  buildZip([
    { name: 'plugin.json', data: Buffer.from(JSON.stringify({ id, name: id, version: '1.0.0', entry: 'main.py' })) },
    { name: 'main.py', data: Buffer.from(`print("hello from ${id}")${extra}\n`) },
  ]);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

test.before(async () => {
  files = await startFileServer();
  proxy = await startConnectProxy();
  imghost = await startTestImghost({ PACKAGE_MAX_BYTES: String(MAX_BYTES) });
  site = await startTestSite(
    {
      HTTPS_PROXY: proxy.url,
      NODE_EXTRA_CA_CERTS: testCaPath(),
      WEBHOOK_ALLOWED_PORTS: String(files.port),
      IMAGE_HOST_URL: imghost.url,
      PACKAGE_MAX_BYTES: String(MAX_BYTES),
    },
    testSql(),
    undefined,
    undefined,
    { timeoutMs: TIME_LIMIT_MS, pollIntervalMs: 200, scheduleIntervalMs: 3_600_000 },
  );
  client = storeClient(site.url);
  author = await testUser(testSql(), 'check-author');
  admin = await testUser(testSql(), 'check-admin', { admin: true });
});
test.after(async () => {
  await site.close();
  await imghost.close();
  await files.close();
  await proxy.close();
  await closeTestSql();
});

const link = (path: string) => `${files.origin}${path}`;

async function create(id: string, path: string, fields: Record<string, unknown> = {}) {
  const created = await client.post('/apps/api/plugins', newPlugin(id, { download: link(path), ...fields }), { cookie: author.cookie });
  assert.is(created.status, 201, JSON.stringify(created.body));
  return created.body.plugin;
}

const record = async (id: string, cookie = admin.cookie) => (await client.get(`/apps/api/plugins/${id}`, { cookie })).body.plugin;

/** The record once its check is no longer pending (or is `status`). */
async function settled(id: string, status?: string, ms = 15_000): Promise<any> {
  const until = Date.now() + ms;
  for (;;) {
    const plugin = await record(id);
    const now = plugin.packageCheck?.status;
    if (status === undefined ? now !== 'pending' : now === status) return plugin;
    if (Date.now() > until) throw new Error(`${id}: packageCheck ${JSON.stringify(plugin.packageCheck)}, waited for ${status ?? 'a result'}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const approve = (id: string) => client.post(`/apps/api/plugins/${id}/review`, { action: 'approve' }, { cookie: admin.cookie });

test('a good file: fetched through the proxy, inspected, ok with its hash, size and entries; approval pins the hash', async () => {
  const bytes = zip('good-link');
  files.files.set('/good.zip', { kind: 'bytes', body: bytes });
  const created = await create('good-link', '/good.zip');
  assert.equal(created.packageCheck, { status: 'pending', checkedAt: null });
  assert.is(created.sha256, null);

  const checked = await settled('good-link');
  assert.equal(
    { ...checked.packageCheck, checkedAt: typeof checked.packageCheck.checkedAt },
    { status: 'ok', sha256: sha256(bytes), size: bytes.length, entryCount: 2, manifest: checked.packageCheck.manifest, checks: [], checkedAt: 'string' },
  );
  // The manifest as the launcher reads it (versions/manifest, issue 31).
  assert.equal([checked.packageCheck.manifest.id, checked.packageCheck.manifest.name, checked.packageCheck.manifest.version], ['good-link', 'good-link', '1.0.0']);
  assert.ok(proxy.connects.some((entry) => entry.target === `files.test:${files.port}`), 'fetched through the proxy');
  assert.is(files.requests.filter((request) => request.path === '/good.zip').length, 1);

  // Its author sees it; a visitor does not (nothing changed).
  assert.is((await record('good-link', author.cookie)).packageCheck.status, 'ok');

  const approved = await approve('good-link');
  assert.is(approved.status, 200);
  assert.is(approved.body.plugin.sha256, sha256(bytes), 'pinned');
  assert.is(approved.body.plugin.packageCheck.status, 'ok');
  const install = (await client.get('/apps/api/plugins/good-link/install-link')).body;
  assert.is(install.sha256, sha256(bytes));
  assert.is(install.propose.sha256, sha256(bytes));
  assert.match(install.install_url, `&sha256=${sha256(bytes)}`);
  assert.is((await client.get('/apps/api/plugins/good-link')).body.plugin.packageCheck, undefined, 'a visitor sees no check while it matches');
});

test('a wrong author hash is mismatch, and approval is 409 CONFLICT on download; the right hash in an edit makes it ok', async () => {
  const bytes = zip('wrong-hash');
  files.files.set('/wrong-hash.zip', { kind: 'bytes', body: bytes });
  await create('wrong-hash', '/wrong-hash.zip', { sha256: 'a'.repeat(64) });
  const checked = await settled('wrong-hash');
  assert.is(checked.packageCheck.status, 'mismatch');
  assert.is(checked.packageCheck.sha256, sha256(bytes));
  assert.match(checked.packageCheck.reason, 'a'.repeat(64));
  const refused = await approve('wrong-hash');
  assert.is(refused.status, 409);
  assert.equal([refused.body.code, refused.body.field], ['CONFLICT', 'download']);
  assert.is((await record('wrong-hash')).status, 'pending');

  // The author gives the right hash: decided again from the bytes already checked.
  const edited = await client.request('PATCH', '/apps/api/plugins/wrong-hash', { cookie: author.cookie, body: { sha256: sha256(bytes) } });
  assert.is(edited.status, 200);
  assert.is((await settled('wrong-hash', 'ok')).packageCheck.status, 'ok');
  assert.is((await approve('wrong-hash')).status, 200);
});

test('a file changed after approval: the watch finds it changed, the pin stays, author and administrators are told (and their webhooks), audited, visitors see it', async () => {
  const before = zip('drifting');
  files.files.set('/drifting.zip', { kind: 'bytes', body: before });
  await create('drifting', '/drifting.zip');
  await settled('drifting');
  assert.is((await approve('drifting')).status, 200);
  const hook = await client.request('PUT', '/apps/api/webhook', { cookie: author.cookie, body: { url: `https://receiver.test:${files.port}/hook` } });
  assert.is(hook.status, 200, JSON.stringify(hook.body));
  files.files.set('/hook', { kind: 'bytes', body: Buffer.from('ok'), contentType: 'text/plain' });

  const after = zip('drifting', '# changed');
  files.files.set('/drifting.zip', { kind: 'bytes', body: after });
  // The schedule arms what is older than the period; here, a period of 1 ms.
  const schedule = startRecheckSchedule({ sql: testSql(), log: testLogger() }, 1, 3_600_000, false);
  assert.ok((await schedule.runOnce()).includes('drifting'));
  const changed = await settled('drifting', 'changed');
  assert.is(changed.sha256, sha256(before), 'the pin stays');
  assert.is(changed.packageCheck.sha256, sha256(after));
  const install = (await client.get('/apps/api/plugins/drifting/install-link')).body;
  assert.is(install.sha256, sha256(before), 'launchers keep refusing the new bytes');

  const visitor = (await client.get('/apps/api/plugins/drifting')).body.plugin;
  assert.equal(Object.keys(visitor.packageCheck), ['status', 'checkedAt']);
  assert.is(visitor.packageCheck.status, 'changed');

  for (const user of [author, admin]) {
    const { notifications } = (await client.get('/apps/api/notifications', { cookie: user.cookie })).body;
    const told = notifications.find((notice: any) => notice.kind === 'package.changed' && notice.plugin === 'drifting');
    assert.ok(told, `${user.username} told`);
    assert.match(told.message, 'no longer matches what was reviewed');
  }
  const audit = (await client.get('/apps/api/audit?plugin=drifting', { cookie: admin.cookie })).body.entries;
  assert.ok(audit.some((entry: any) => entry.action === 'package.changed' && entry.after.sha256 === sha256(after)), JSON.stringify(audit));
  const until = Date.now() + 10_000;
  while (!files.requests.some((request) => request.path === '/hook' && request.headers['x-webhook-event'] === 'package.changed')) {
    if (Date.now() > until) throw new Error('no package.changed webhook');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});

test('a manifest for another plugin id is refused, naming both ids, as a hosted version\'s would be; approval is 409 CONFLICT on download', async () => {
  files.files.set('/other-id.zip', { kind: 'bytes', body: zip('someone-else') });
  await create('other-id', '/other-id.zip');
  const checked = await settled('other-id');
  assert.is(checked.packageCheck.status, 'refused');
  assert.match(checked.packageCheck.reason, '"someone-else"');
  assert.match(checked.packageCheck.reason, '"other-id"');
  assert.is(checked.packageCheck.sha256, sha256(zip('someone-else')), 'the file it refused');
  const refused = await approve('other-id');
  assert.equal([refused.status, refused.body.code, refused.body.field], [409, 'CONFLICT', 'download']);
});

test('an administrator asks for a check: 202, and the link is fetched again; 404 for a hosted or unknown plugin; 401/403 for others', async () => {
  const bytes = zip('on-demand');
  files.files.set('/on-demand.zip', { kind: 'bytes', body: bytes });
  await create('on-demand', '/on-demand.zip');
  await settled('on-demand');
  const fetched = () => files.requests.filter((request) => request.path === '/on-demand.zip').length;
  assert.is(fetched(), 1);
  const asked = await client.post('/apps/api/plugins/on-demand/package-check', undefined, { cookie: admin.cookie });
  assert.equal([asked.status, asked.body], [202, { success: true }]);
  const until = Date.now() + 10_000;
  while (fetched() < 2) {
    if (Date.now() > until) throw new Error('not fetched again');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const cases = [
    { what: 'no such plugin', id: 'no-such-plugin', cookie: admin.cookie, status: 404 },
    { what: 'not an id', id: 'x', cookie: admin.cookie, status: 404 },
    { what: 'its author', id: 'on-demand', cookie: author.cookie, status: 403 },
    { what: 'a visitor', id: 'on-demand', cookie: undefined, status: 401 },
  ];
  for (const { what, id, cookie, status } of cases) {
    const answer = await client.post(`/apps/api/plugins/${id}/package-check`, undefined, cookie ? { cookie } : {});
    assert.is(answer.status, status, what);
  }
  // A plugin whose download is hosted has no outside link.
  await testSql()`delete from plugin_package_checks where plugin_id = 'good-link'`;
  assert.is((await client.post('/apps/api/plugins/good-link/package-check', undefined, { cookie: admin.cookie })).status, 404);
});

test('what cannot be fetched is unreachable or refused, each with a reason; approval of unreachable is left as it was', async () => {
  files.files.set('/missing.zip', { kind: 'status', status: 404 });
  files.files.set('/to-private.zip', { kind: 'redirect', location: `https://10.0.0.7:${files.port}/x.zip` });
  files.files.set('/to-loopback.zip', { kind: 'redirect', location: `https://127.0.0.1:${files.port}/good.zip` });
  files.files.set('/stall.zip', { kind: 'stall' });
  files.files.set('/not-a-zip.zip', { kind: 'bytes', body: Buffer.from('<html>not a zip</html>') });
  files.files.set('/huge-declared.zip', { kind: 'generated', size: 200 * 1024 * 1024 });
  files.files.set('/huge-streamed.zip', { kind: 'generated', size: 200 * 1024 * 1024, declareLength: false });
  files.files.set('/hop1.zip', { kind: 'redirect', location: '/hop2.zip' });
  files.files.set('/hop2.zip', { kind: 'redirect', location: '/hop3.zip' });
  files.files.set('/hop3.zip', { kind: 'redirect', location: '/hop4.zip' });
  files.files.set('/hop4.zip', { kind: 'redirect', location: '/good.zip' });
  files.files.set('/three-a.zip', { kind: 'redirect', status: 301, location: '/three-b.zip' });
  files.files.set('/three-b.zip', { kind: 'redirect', status: 307, location: `https://other.test:${files.port}/three-c.zip` });
  files.files.set('/three-c.zip', { kind: 'redirect', status: 308, location: '/ninth.zip' });
  files.files.set('/ninth.zip', { kind: 'bytes', body: zip('bad-link-9') });
  const cases = [
    { what: 'a 404', path: '/missing.zip', status: 'unreachable', reason: /answered 404/ },
    { what: 'a redirect to a private address', path: '/to-private.zip', status: 'refused', reason: /not public/ },
    { what: 'a redirect to loopback', path: '/to-loopback.zip', status: 'refused', reason: /not public/ },
    { what: 'a server that stalls', path: '/stall.zip', status: 'unreachable', reason: /longer than 4 s/ },
    { what: 'not a ZIP', path: '/not-a-zip.zip', status: 'refused', reason: /Not an acceptable package/ },
    { what: '200 MiB, declared', path: '/huge-declared.zip', status: 'refused', reason: /larger than PACKAGE_MAX_BYTES/ },
    { what: '200 MiB, streamed without a length', path: '/huge-streamed.zip', status: 'refused', reason: /larger than PACKAGE_MAX_BYTES/ },
    { what: 'four redirects', path: '/hop1.zip', status: 'unreachable', reason: /more than 3 redirects/ },
    { what: 'three redirects are followed, to another host too', path: '/three-a.zip', status: 'ok', reason: undefined },
  ];
  let n = 0;
  for (const { what, path, status, reason } of cases) {
    const id = `bad-link-${++n}`;
    const sentBefore = files.bytesSent();
    const started = Date.now();
    await create(id, path);
    const checked = await settled(id);
    assert.is(checked.packageCheck.status, status, what);
    if (reason) assert.match(checked.packageCheck.reason, reason, what);
    if (status !== 'ok') assert.is(checked.packageCheck.sha256, undefined, what);
    if (what.startsWith('200 MiB')) {
      // Never read much past the limit (a socket's buffers at most), nor for long.
      assert.ok(files.bytesSent() - sentBefore < 16 * MAX_BYTES, `${what}: ${files.bytesSent() - sentBefore} bytes sent`);
      assert.ok(Date.now() - started < 10_000, what);
    }
  }
  assert.is((await approve('bad-link-1')).status, 200, 'unreachable leaves approval as it was');
  assert.is((await record('bad-link-1')).sha256, null, 'and pins nothing');
  const refused = await approve('bad-link-2');
  assert.equal([refused.status, refused.body.code, refused.body.field], [409, 'CONFLICT', 'download']);
});

test('a new download in a pending update is checked anew: pending, then its own result; approving the update pins it', async () => {
  const first = zip('moving');
  const second = zip('moving', '# v2');
  files.files.set('/moving-1.zip', { kind: 'bytes', body: first });
  files.files.set('/moving-2.zip', { kind: 'bytes', body: second });
  await create('moving', '/moving-1.zip');
  await settled('moving');
  assert.is((await approve('moving')).status, 200);
  const edited = await client.request('PATCH', '/apps/api/plugins/moving', { cookie: author.cookie, body: { download: link('/moving-2.zip'), version: '2.0.0' } });
  assert.is(edited.status, 200);
  assert.is(edited.body.plugin.packageCheck.status, 'pending');
  const checked = await settled('moving');
  assert.equal([checked.packageCheck.status, checked.packageCheck.sha256], ['ok', sha256(second)]);
  const approved = await approve('moving');
  assert.equal([approved.body.plugin.download, approved.body.plugin.sha256], [link('/moving-2.zip'), sha256(second)]);
});

test('the watch arms its share of the approved links older than the period, oldest first, one process at a time', async () => {
  const sql = testSql();
  // Every approved link was checked "two hours ago", one of them earlier still.
  await sql`update plugin_package_checks set due_at = null, checked_at = now() - interval '2 hours'`;
  await sql`update plugin_package_checks set checked_at = now() - interval '3 hours' where plugin_id = 'wrong-hash'`;
  const watched = await sql<Array<{ plugin_id: string }>>`
    select c.plugin_id from plugin_package_checks c join plugins p on p.id = c.plugin_id and p.status = 'approved' and p.download = c.download`;
  assert.ok(watched.length >= 3, String(watched.length));
  const hour = 3_600_000;
  // A period of an hour run every 20 minutes: a third each run.
  const schedule = startRecheckSchedule({ sql, log: testLogger() }, hour, hour / 3, false);

  // Another process holds the turn: this one arms nothing.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let taken!: () => void;
  const holding = new Promise<void>((resolve) => (taken = resolve));
  const other = sql.begin(async (t) => {
    await t`select pg_advisory_xact_lock(286, 1)`;
    taken();
    await held;
  });
  await holding;
  assert.equal(await schedule.runOnce(), []);
  release();
  await other;

  const armed = await schedule.runOnce();
  assert.is(armed.length, Math.ceil(watched.length / 3));
  assert.ok(armed.includes('wrong-hash'), 'oldest first');
  // Checked within the period: nothing to arm.
  await sql`update plugin_package_checks set due_at = null, checked_at = now()`;
  assert.equal(await schedule.runOnce(), []);
});

test('nothing the checks fetched stays in the image host\'s package store', async () => {
  const { readdirSync } = await import('node:fs');
  const { join } = await import('node:path');
  const dir = imghost.config.packagesDir;
  const kept = readdirSync(dir).filter((name) => name !== '.tmp');
  assert.equal(kept, []);
  assert.equal(readdirSync(join(dir, '.tmp')), []);
});

test.run();
