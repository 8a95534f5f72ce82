// What launchers use: install link, manifest and install click (exact shapes, CORS,
// approved only), the click's de-duplication and rate limit, concurrency, two site
// processes on one database, and the visibility matrix of every plugin read.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rawRequest } from '../../helpers/raw-http.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { purgeOldClicks } from '../../../src/services/site/store/click-purge.js';
import { pluginIn, storeClient, storeUsers, type StoreClient, type Users } from './store-client.js';

let site: TestServer;
/** A second site with another INSTALL_SCHEME, started with the first: starting it
 *  mid-test took seconds under load, long enough for the first client's idle
 *  keep-alive connection to be closed by the server under it ("fetch failed"). */
let otherScheme: TestServer;
/** Another process of the same site, for the tests of two processes on one database (started with the first, likewise). */
let second: TestServer;
let client: StoreClient;
let users: Users;
const sql = testSql();
let addressCounter = 0;
/** A fresh client address per use, so the per-address rules of one test do not touch another. */
const freshAddress = () => `198.51.${Math.floor(++addressCounter / 250)}.${addressCounter % 250}`;

test.before(async () => {
  site = await startTestSite({ TRUST_PROXY: 'true' });
  otherScheme = await startTestSite({ INSTALL_SCHEME: 'mylauncher' });
  second = await startTestSite({ TRUST_PROXY: 'true' });
  client = storeClient(site.url);
  users = await storeUsers(sql);
});
test.after(async () => {
  await site.close();
  await otherScheme.close();
  await second.close();
  await closeTestSql();
});

test('GET install-link: the documented shape, exactly, without a sha256', async () => {
  await pluginIn(client, users, 'approved', 'link.plain', { download: 'https://cdn.example.com/files/My Plugin.zip?x=1&y=2' });
  const answer = await client.get('/apps/api/plugins/link.plain/install-link');
  assert.is(answer.status, 200);
  assert.is(answer.headers.get('access-control-allow-origin'), '*');
  const download = 'https://cdn.example.com/files/My%20Plugin.zip?x=1&y=2';
  assert.equal(answer.body, {
    success: true,
    install_url: `bloret://plugin/install?download=${encodeURIComponent(download)}&id=link.plain&source=store`,
    download,
    sha256: null,
    propose: { download, id: 'link.plain', source: 'store', name: 'Plugin link.plain', version: '1.0.0', author: 'Some Author', description: 'The link.plain plugin', permissions: [] },
  });
});

test('GET install-link with a sha256: install_url ends with &sha256=<hex>, propose carries it', async () => {
  const sha = 'AbCd'.repeat(16);
  await pluginIn(client, users, 'approved', 'link_hashed', { sha256: sha });
  const answer = await client.get('/apps/api/plugins/link_hashed/install-link');
  const download = 'https://downloads.example.com/link_hashed.zip';
  assert.equal(answer.body, {
    success: true,
    install_url: `bloret://plugin/install?download=${encodeURIComponent(download)}&id=link_hashed&source=store&sha256=${sha.toLowerCase()}`,
    download,
    sha256: sha.toLowerCase(),
    propose: {
      download, id: 'link_hashed', source: 'store', sha256: sha.toLowerCase(),
      name: 'Plugin link_hashed', version: '1.0.0', author: 'Some Author', description: 'The link_hashed plugin', permissions: [],
    },
  });
});

test('GET install-link: propose carries what the launcher\'s confirmation dialog shows (name, version, author, description, permissions), install_url none of it', async () => {
  await pluginIn(client, users, 'approved', 'link.dialog', { name: 'Dialog', version: '2.0', author: '', description: 'Asks for two', permissions: ['ui.home', 'process.exec'] });
  const { install_url, propose } = (await client.get('/apps/api/plugins/link.dialog/install-link')).body;
  assert.equal(
    [propose.name, propose.version, propose.author, propose.description, propose.permissions],
    ['Dialog', '2.0', 'alice', 'Asks for two', ['ui.home', 'process.exec']],
    'no author: the submitter, as the manifest\'s master',
  );
  assert.is(install_url, `bloret://plugin/install?download=${encodeURIComponent('https://downloads.example.com/link.dialog.zip')}&id=link.dialog&source=store`);
});

test('install_url uses INSTALL_SCHEME', async () => {
  await pluginIn(client, users, 'approved', 'link-scheme');
  const answer = await storeClient(otherScheme.url).get('/apps/api/plugins/link-scheme/install-link');
  assert.ok(answer.body.install_url.startsWith('mylauncher://plugin/install?download='));
});

test('GET manifest.json: {name, master, download, version} with CORS; master is the author, else the submitter', async () => {
  await pluginIn(client, users, 'approved', 'mf-author', { name: 'With Author', author: 'Jane Doe', version: '3.1' });
  await pluginIn(client, users, 'approved', 'mf-submitter', { name: 'No Author', author: '', version: '0.1' });
  const withAuthor = await client.get('/apps/api/plugins/mf-author/manifest.json');
  assert.is(withAuthor.status, 200);
  assert.is(withAuthor.headers.get('access-control-allow-origin'), '*');
  assert.match(withAuthor.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(withAuthor.body, { name: 'With Author', master: 'Jane Doe', download: 'https://downloads.example.com/mf-author.zip', version: '3.1' });
  const withoutAuthor = await client.get('/apps/api/plugins/mf-submitter/manifest.json');
  assert.equal(withoutAuthor.body, { name: 'No Author', master: 'alice', download: 'https://downloads.example.com/mf-submitter.zip', version: '0.1' });
});

test('POST install-click: {success, id, installCount}; the same address counts once per plugin per hour', async () => {
  await pluginIn(client, users, 'approved', 'Click-Once');
  const ip = freshAddress();
  const first = await client.post('/apps/api/plugins/click-once/install-click', undefined, { ip });
  assert.is(first.status, 200);
  assert.equal(first.body, { success: true, id: 'Click-Once', installCount: 1 });
  const again = await client.post('/apps/api/plugins/Click-Once/install-click', undefined, { ip });
  assert.equal(again.body, { success: true, id: 'Click-Once', installCount: 1 });
  const other = await client.post('/apps/api/plugins/Click-Once/install-click', undefined, { ip: freshAddress() });
  assert.is(other.body.installCount, 2);
  // An hour later the same address counts again.
  await sql`update plugin_install_clicks set counted_at = now() - interval '61 minutes' where plugin_id = 'Click-Once' and client_address = ${ip}`;
  const later = await client.post('/apps/api/plugins/Click-Once/install-click', undefined, { ip });
  assert.is(later.body.installCount, 3);
  assert.is((await client.get('/apps/api/plugins/Click-Once')).body.plugin.installCount, 3);
});

// Regression: any website could raise install counts from its visitors' browsers
// (a form or fetch to install-click with Content-Type text/plain counted). Another
// site's request is refused before anything is counted; the launcher (no Origin, no
// Fetch Metadata) and the plugin page's own click still count.
const clickSenders: Array<{ what: string; headers: Record<string, string>; counts: boolean }> = [
  { what: 'a page on evil.example (Origin, Sec-Fetch-Site cross-site, text/plain)', headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'content-type': 'text/plain' }, counts: false },
  { what: 'a foreign Origin alone', headers: { origin: 'https://evil.example' }, counts: false },
  { what: 'Origin null (a sandboxed frame)', headers: { origin: 'null' }, counts: false },
  { what: 'our host on another port', headers: { origin: 'http://site.test:8080' }, counts: false },
  { what: 'Sec-Fetch-Site cross-site without Origin', headers: { 'sec-fetch-site': 'cross-site' }, counts: false },
  { what: 'Sec-Fetch-Site same-site (a sibling subdomain)', headers: { 'sec-fetch-site': 'same-site' }, counts: false },
  { what: 'the plugin page (own Origin, same-origin)', headers: { origin: 'http://site.test', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' }, counts: true },
  { what: 'the launcher (neither Origin nor Fetch Metadata)', headers: {}, counts: true },
];
for (const [index, c] of clickSenders.entries()) {
  test(`regression: any website can raise install counts from its visitors' browsers (${c.what} → ${c.counts ? '200, counted' : '403, nothing counted'})`, async () => {
    const id = `click-from-${index}`;
    await pluginIn(client, users, 'approved', id);
    const answer = await rawRequest(site.url, 'POST', `/apps/api/plugins/${id}/install-click`, {
      headers: { host: 'site.test', 'x-forwarded-for': freshAddress(), 'content-length': '0', ...c.headers },
    });
    assert.is(answer.status, c.counts ? 200 : 403, answer.body);
    if (c.counts) assert.is(JSON.parse(answer.body).installCount, 1);
    else assert.equal(JSON.parse(answer.body), { success: false, error: 'Cross-site request refused', code: 'FORBIDDEN' });
    const [row] = await sql<Array<{ count: number; clicks: number }>>`
      select install_count::int as count, (select count(*)::int from plugin_install_clicks where plugin_id = ${id}) as clicks from plugins where id = ${id}`;
    assert.equal(row, { count: c.counts ? 1 : 0, clicks: c.counts ? 1 : 0 });
  });
}

test('install click: 200 parallel clicks from distinct addresses add exactly 200', async () => {
  await pluginIn(client, users, 'approved', 'click-many');
  const answers = await Promise.all(
    Array.from({ length: 200 }, () => client.post('/apps/api/plugins/click-many/install-click', undefined, { ip: freshAddress() })),
  );
  for (const answer of answers) assert.is(answer.status, 200);
  const counts = answers.map((answer) => answer.body.installCount).sort((a, b) => a - b);
  assert.equal(counts, Array.from({ length: 200 }, (_, i) => i + 1), 'every click saw its own count');
  assert.is((await client.get('/apps/api/plugins/click-many')).body.plugin.installCount, 200);
});

test('install click: the same address 20 times in parallel adds exactly 1', async () => {
  await pluginIn(client, users, 'approved', 'click-same');
  const ip = freshAddress();
  const answers = await Promise.all(Array.from({ length: 20 }, () => client.post('/apps/api/plugins/click-same/install-click', undefined, { ip })));
  for (const answer of answers) assert.is(answer.status, 200);
  // Regression: a click that waited for the counting one used to answer the count
  // of its own statement's snapshot (0), not the committed 1.
  for (const answer of answers) assert.is(answer.body.installCount, 1);
  assert.is((await client.get('/apps/api/plugins/click-same')).body.plugin.installCount, 1);
});

test('install click: at most 60 a minute per address over all plugins, then 429 RATE_LIMITED with Retry-After', async () => {
  const ids = ['rate-a', 'rate-b', 'rate-c'];
  for (const id of ids) await pluginIn(client, users, 'approved', id);
  const ip = freshAddress();
  for (let i = 0; i < 60; i++) {
    const answer = await client.post(`/apps/api/plugins/${ids[i % 3]}/install-click`, undefined, { ip });
    assert.is(answer.status, 200, `click ${i + 1}`);
  }
  const refused = await client.post('/apps/api/plugins/rate-a/install-click', undefined, { ip });
  assert.is(refused.status, 429);
  assert.is(refused.body.code, 'RATE_LIMITED');
  assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  assert.ok(Number(refused.headers.get('retry-after')) <= 60);
  assert.is((await client.post('/apps/api/plugins/rate-a/install-click', undefined, { ip: freshAddress() })).status, 200);
});

test('two site processes on one database count clicks from one address once', async () => {
  await pluginIn(client, users, 'approved', 'click-two-sites');
  const ip = freshAddress();
  const path = '/apps/api/plugins/click-two-sites/install-click';
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? client : storeClient(second.url)).post(path, undefined, { ip })),
  );
  for (const answer of answers) assert.is(answer.body.installCount, 1);
  const other = await storeClient(second.url).post(path, undefined, { ip: freshAddress() });
  assert.is(other.body.installCount, 2);
});

// Visibility: visitor, author, another user, administrator x pending, approved,
// rejected x every read. Hidden is 404 NOT_FOUND, never 403.
const STATUSES = ['pending', 'approved', 'rejected'] as const;
const VIEWERS = ['visitor', 'author', 'other', 'admin'] as const;

test('visibility matrix: list, detail, manifest, install link, install click', async () => {
  for (const status of STATUSES) await pluginIn(client, users, status, `vis-${status}`);
  const cookies: Record<(typeof VIEWERS)[number], string | undefined> = {
    visitor: undefined,
    author: users.alice,
    other: users.bob,
    admin: users.admin,
  };
  for (const status of STATUSES) {
    const id = `vis-${status}`;
    for (const viewer of VIEWERS) {
      const cookie = cookies[viewer];
      const what = `${viewer} x ${status}`;
      const seesIt = status === 'approved' || viewer === 'author' || viewer === 'admin';
      const list = await client.get('/apps/api/plugins?limit=500', { cookie });
      assert.is(list.body.plugins.some((plugin: { id: string }) => plugin.id === id), seesIt, `list: ${what}`);
      const detail = await client.get(`/apps/api/plugins/${id}`, { cookie });
      assert.is(detail.status, seesIt ? 200 : 404, `detail: ${what}`);
      if (!seesIt) assert.is(detail.body.code, 'NOT_FOUND');
      if (seesIt) {
        const privileged = viewer === 'author' || viewer === 'admin';
        assert.is('pendingUpdate' in detail.body.plugin, privileged, `pendingUpdate: ${what}`);
        assert.is('review' in detail.body.plugin, privileged, `review: ${what}`);
      }
      // The install endpoints exist for approved plugins alone, whoever asks.
      const installable = status === 'approved';
      assert.is((await client.get(`/apps/api/plugins/${id}/manifest.json`, { cookie })).status, installable ? 200 : 404, `manifest: ${what}`);
      assert.is((await client.get(`/apps/api/plugins/${id}/install-link`, { cookie })).status, installable ? 200 : 404, `install link: ${what}`);
      const click = await client.post(`/apps/api/plugins/${id}/install-click`, undefined, { cookie, ip: freshAddress() });
      assert.is(click.status, installable ? 200 : 404, `install click: ${what}`);
    }
  }
  const [{ install_count }] = await sql`select install_count::int from plugins where id = 'vis-pending'`;
  assert.is(install_count, 0, 'clicks on a hidden plugin count nothing');
});

test('missing plugins: 404 on every install endpoint, with CORS on the cross-origin ones', async () => {
  const link = await client.get('/apps/api/plugins/nothing-here/install-link');
  assert.is(link.status, 404);
  assert.is(link.headers.get('access-control-allow-origin'), '*');
  assert.is((await client.get('/apps/api/plugins/nothing-here/manifest.json')).status, 404);
  assert.is((await client.post('/apps/api/plugins/nothing-here/install-click', undefined, { ip: freshAddress() })).status, 404);
  assert.is((await client.post('/apps/api/plugins/%2e%2e/install-click', undefined, { ip: freshAddress() })).status, 404);
});

test('click rows over an hour old are purged in batches until none is left; recent ones stay', async () => {
  await pluginIn(client, users, 'approved', 'click-purge');
  await sql`insert into plugin_install_clicks (plugin_id, client_address, counted_at)
            select 'click-purge', 'old-' || g, now() - interval '2 hours' from generate_series(1, 25) g`;
  await sql`insert into plugin_install_clicks (plugin_id, client_address) values ('click-purge', 'recent')`;
  const purged = await purgeOldClicks({ sql }, 10, 5);
  assert.ok(purged >= 25, String(purged));
  const left = await sql`select client_address from plugin_install_clicks where plugin_id = 'click-purge'`;
  assert.equal(left.map((row) => row.client_address), ['recent']);
});

test.run();
