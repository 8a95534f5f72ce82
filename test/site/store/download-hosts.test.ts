// Download hosts the launcher accepts (issue 31): DOWNLOAD_HOSTS refuses outside
// links elsewhere, matched as the Bloret launcher matches (host == t or a subdomain
// of t); unset, any https host is taken (SPEC); and set or not, the review data
// warns of an outside link a launcher with default settings refuses.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_LIST_WARNING, LAUNCHER_DEFAULT_TRUSTED_HOSTS } from '../../../src/services/site/store/download-hosts.js';
import { hostIsTrusted } from '../../../src/services/site/settings.js';
import { BLORET_TRUSTED_HOSTS } from '../../clients/client-readers.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { newPlugin, pluginIn, storeClient, storeUsers, type StoreClient, type Users } from './store-client.js';

const PACKAGES = 'https://files.example.net';
let limited: TestServer;
let open: TestServer;
let limitedClient: StoreClient;
let openClient: StoreClient;
let users: Users;

test.before(async () => {
  limited = await startTestSite({ DOWNLOAD_HOSTS: ' Store.Bloret.com, github.com,,files.example.net ', IMAGE_HOST_PUBLIC_URL: PACKAGES });
  open = await startTestSite({ IMAGE_HOST_PUBLIC_URL: PACKAGES });
  limitedClient = storeClient(limited.url);
  openClient = storeClient(open.url);
  users = await storeUsers(testSql());
});
test.after(async () => {
  await limited.close();
  await open.close();
  await closeTestSql();
});

test('the launcher\'s default trusted hosts are the constant the review warning uses (Bloret-Launcher modules/plugin_install_request.py)', () => {
  assert.equal([...LAUNCHER_DEFAULT_TRUSTED_HOSTS], BLORET_TRUSTED_HOSTS);
});

const matching = [
  { what: 'the host itself', host: 'github.com', trusted: true },
  { what: 'in another case', host: 'GitHub.COM', trusted: true },
  { what: 'a subdomain', host: 'objects.github.com', trusted: true },
  { what: 'a deeper subdomain', host: 'a.b.github.com', trusted: true },
  { what: 'a name that only ends like it', host: 'notgithub.com', trusted: false },
  { what: 'a parent of it', host: 'bloret.com', trusted: false, hosts: ['store.bloret.com'] },
  { what: 'a trailing dot (the launcher compares as written)', host: 'github.com.', trusted: false },
  { what: 'the host with another suffix', host: 'github.com.evil.example', trusted: false },
];
for (const c of matching) {
  test(`hostIsTrusted matches as the launcher does: ${c.what}`, () => {
    assert.is(hostIsTrusted(c.host, c.hosts ?? ['github.com']), c.trusted);
  });
}

const refused = [
  { what: 'another host', download: 'https://downloads.example.org/p.zip' },
  { what: 'a name that only ends like a listed host', download: 'https://notgithub.com/p.zip' },
  { what: 'a sibling of a listed subdomain', download: 'https://cdn.bloret.com/p.zip' },
  { what: 'a listed host as a subdomain of another', download: 'https://github.com.evil.example/p.zip' },
];
const accepted = [
  { what: 'a listed host', download: 'https://github.com/a/b/releases/download/v1/p.zip' },
  { what: 'a listed host written in capitals', download: 'https://STORE.bloret.com/p.zip' },
  { what: 'a subdomain of a listed host', download: 'https://cdn.store.bloret.com/p.zip' },
];

for (const [index, c] of refused.entries()) {
  test(`DOWNLOAD_HOSTS set: creating a plugin whose download is on ${c.what} is 400 VALIDATION_FAILED field "download"`, async () => {
    const answer = await limitedClient.post('/apps/api/plugins', newPlugin(`hosts.refused${index}`, { download: c.download }), { cookie: users.alice });
    assert.is(answer.status, 400, JSON.stringify(answer.body));
    assert.is(answer.body.code, 'VALIDATION_FAILED');
    assert.is(answer.body.field, 'download');
    assert.match(answer.body.error, /store\.bloret\.com, github\.com, files\.example\.net/);
  });
}

for (const [index, c] of accepted.entries()) {
  test(`DOWNLOAD_HOSTS set: a download on ${c.what} is taken`, async () => {
    const answer = await limitedClient.post('/apps/api/plugins', newPlugin(`hosts.accepted${index}`, { download: c.download }), { cookie: users.alice });
    assert.is(answer.status, 201, JSON.stringify(answer.body));
  });
}

test('DOWNLOAD_HOSTS set: an edit moving the download elsewhere is 400 field "download", and nothing changes; an edit without one passes', async () => {
  await pluginIn(limitedClient, users, 'approved', 'hosts.edited', { download: 'https://github.com/a/b/releases/download/v1/p.zip' });
  for (const cookie of [users.alice, users.admin]) {
    const moved = await limitedClient.patch('/apps/api/plugins/hosts.edited', { download: 'https://downloads.example.org/p.zip' }, { cookie });
    assert.is(moved.status, 400, JSON.stringify(moved.body));
    assert.is(moved.body.code, 'VALIDATION_FAILED');
    assert.is(moved.body.field, 'download');
  }
  const detail = await limitedClient.get('/apps/api/plugins/hosts.edited', { cookie: users.alice });
  assert.is(detail.body.plugin.download, 'https://github.com/a/b/releases/download/v1/p.zip');
  assert.is(detail.body.plugin.pendingUpdate, null);
  const described = await limitedClient.patch('/apps/api/plugins/hosts.edited', { description: 'Still on GitHub' }, { cookie: users.alice });
  assert.is(described.status, 200, JSON.stringify(described.body));
});

test('DOWNLOAD_HOSTS unset: any https host is taken, as SPEC says', async () => {
  const answer = await openClient.post('/apps/api/plugins', newPlugin('hosts.anywhere', { download: 'https://downloads.example.org/p.zip' }), { cookie: users.alice });
  assert.is(answer.status, 201, JSON.stringify(answer.body));
});

test('review data: an outside link off the launcher\'s default list carries a warning for the author and administrators (detail and include=review), none for visitors', async () => {
  await pluginIn(openClient, users, 'pending', 'hosts.warned', { download: 'https://downloads.example.org/warned.zip' });
  for (const cookie of [users.alice, users.admin]) {
    const { warnings } = (await openClient.get('/apps/api/plugins/hosts.warned', { cookie })).body.plugin;
    assert.equal(warnings.map(({ message, ...rest }: { message: string }) => rest), [{ code: 'untrusted-download-host', field: 'download', host: 'downloads.example.org' }]);
    assert.ok(warnings[0].message.includes(DEFAULT_LIST_WARNING), warnings[0].message);
  }
  const queue = (await openClient.get('/apps/api/plugins?scope=admin&status=pending&include=review&limit=100', { cookie: users.admin })).body.plugins;
  const listed = queue.find((plugin: { id: string }) => plugin.id === 'hosts.warned');
  assert.is(listed.warnings.length, 1);
  assert.is(listed.warnings[0].host, 'downloads.example.org');
  await openClient.post('/apps/api/plugins/hosts.warned/review', { action: 'approve' }, { cookie: users.admin });
  const visitor = (await openClient.get('/apps/api/plugins/hosts.warned')).body.plugin;
  assert.not.ok('warnings' in visitor);
});

test('review data: no warning for a trusted host, a subdomain of one, or a hosted package, whatever its host', async () => {
  const cases = [
    { id: 'hosts.github', download: 'https://github.com/a/b/releases/download/v1/p.zip' },
    { id: 'hosts.subdomain', download: 'https://cdn.store.bloret.com/p.zip' },
    { id: 'hosts.hosted', download: `${PACKAGES}/pkg/${'b'.repeat(64)}/p.zip` },
  ];
  for (const c of cases) {
    // A hosted file is a plugin's by an upload (hosted-download-links.test.ts), set here as one sets it.
    const hosted = c.download.startsWith(PACKAGES);
    await pluginIn(openClient, users, 'pending', c.id, hosted ? {} : { download: c.download });
    if (hosted) await testSql()`update plugins set download = ${c.download} where id = ${c.id}`;
    const { warnings } = (await openClient.get(`/apps/api/plugins/${c.id}`, { cookie: users.admin })).body.plugin;
    assert.equal(warnings, [], c.id);
  }
});

test('review data: an update proposing an outside link off the default list is warned of as pendingUpdate.download', async () => {
  await pluginIn(openClient, users, 'approved', 'hosts.update', { download: 'https://github.com/a/b/releases/download/v1/p.zip' });
  const edited = await openClient.patch('/apps/api/plugins/hosts.update', { download: 'https://mirror.example.org/p.zip', version: '1.1.0' }, { cookie: users.alice });
  assert.is(edited.status, 200, JSON.stringify(edited.body));
  const queue = (await openClient.get('/apps/api/plugins?scope=admin&update=pending&include=review&limit=100', { cookie: users.admin })).body.plugins;
  const listed = queue.find((plugin: { id: string }) => plugin.id === 'hosts.update');
  assert.equal(listed.warnings.map((warning: { field: string; host: string }) => [warning.field, warning.host]), [['pendingUpdate.download', 'mirror.example.org']]);
});

test.run();
