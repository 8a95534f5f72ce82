// Client compatibility: what the real Bloret clients read, against the real servers.
// One check per item of issue 8; each `what` names the client file it is written
// from, and the readers in client-readers.ts follow those files (read, not copied).
// docs/api.md "Clients that read these answers" says the same in prose.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../src/lib/log.js';
import { projectRoot } from '../../src/lib/project-root.js';
import { listen } from '../../src/http/server.js';
import { createSite } from '../../src/services/site/app.js';
import { makePng } from '../fixtures/images/generate.js';
import { uploadThroughSite } from '../helpers/media.js';
import { rawRequest } from '../helpers/raw-http.js';
import { closeTestSql, startTestImghost, startTestSite, tempDir, testConfig, testSql, type TestServer } from '../helpers/servers.js';
import { pluginIn, storeClient, storeUsers, type StoreClient, type Users } from '../site/store/store-client.js';
import {
  BLORET_TRUSTED_HOSTS,
  ClientRefused,
  bloraFastDownloadVersions,
  bloraLauncherConfigFromJson,
  bloraProposal,
  bloretFastDownloadVersions,
  bloretInstallLink,
  bloretInstallParams,
  bloretStoreIcon,
  bloretStoreListing,
  bloretWindowsUpdate,
} from './client-readers.js';

const IMAGE_PUBLIC_BASE = 'https://img.bloret.example';
const EXAMPLE = join(projectRoot(), 'config', 'launcher.example.json');
const example = () => JSON.parse(readFileSync(EXAMPLE, 'utf8')) as Record<string, any>;
const getJson = async (base: string, path: string) => {
  const answer = await rawRequest(base, 'GET', path);
  assert.is(answer.status, 200, `${path}: ${answer.body}`);
  return JSON.parse(answer.body) as Record<string, any>;
};

let site: TestServer;
let imghost: TestServer;
let client: StoreClient;
let users: Users;

test.before(async () => {
  imghost = await startTestImghost();
  // The public base stands for the https address a proxy gives the image host.
  site = await startTestSite({ LAUNCHER_CONFIG: EXAMPLE, IMAGE_HOST_URL: imghost.url, IMAGE_HOST_PUBLIC_URL: IMAGE_PUBLIC_BASE });
  client = storeClient(site.url);
  users = await storeUsers(testSql());
});
test.after(async () => {
  await site.close();
  await imghost.close();
  await closeTestSql();
});

/** A site serving `config` as LAUNCHER_CONFIG, logging into an array. */
async function withLauncherConfig(config: unknown, body: (url: string, logs: Array<Record<string, any>>) => Promise<void>) {
  const file = join(tempDir(), 'launcher.json');
  writeFileSync(file, JSON.stringify(config));
  const logs: Array<Record<string, any>> = [];
  const log = createLogger({}, { level: 'debug', write: (line) => logs.push(JSON.parse(line)) });
  const service = createSite({ config: testConfig({ LAUNCHER_CONFIG: file }), sql: testSql(), log });
  const server = await listen(service.handler, '127.0.0.1', 0);
  try {
    await body(server.url, logs);
  } finally {
    await server.close(1000);
    await service.close();
  }
}

// ---- Launcher info -------------------------------------------------------------------

test('BloraLauncher lib/tools/server_info.dart (BloraLauncherConfig.fromJson, lines 251-415): /api/info from the example parses with its strict types', async () => {
  const info = await getJson(site.url, '/api/info');
  const parsed = bloraLauncherConfigFromJson(info);
  const file = example();
  assert.is(parsed.latestVersion, file.latestVersion);
  assert.is(parsed.beta.enabled, true);
  assert.equal(parsed.downloads.stable.github, file.downloads.stable.github);
  assert.equal(parsed.downloads.stable.gitcode, file.downloads.stable.gitcode);
  assert.equal(parsed.blTips, file.BLTips);
  assert.equal(parsed.activity, file.activity);
  // The original server sent these beside them when the beta is on (Bloret-Launcher-New-Website server.js, /api/info).
  for (const key of ['version', 'versionName', 'description']) assert.type(info.beta[key], 'string', `beta.${key}`);
  for (const mirror of ['gitcode', 'github']) for (const kind of ['exe', 'zip']) assert.type(info.downloads.beta[mirror][kind], 'string');
});

const refusedByBlora: Array<{ what: string; change: (info: Record<string, any>) => void; error: RegExp }> = [
  { what: 'a version as a number', change: (i) => (i.latestVersion = 25.3), error: /latestVersion: 'double' is not a subtype of type 'String'/ },
  { what: 'the legacy `Beta: false`', change: (i) => (i.beta = false), error: /beta: 'bool' is not a subtype/ },
  { what: 'downloads as a list', change: (i) => (i.downloads = []), error: /downloads: 'List<dynamic>' is not a subtype/ },
  { what: 'a null among the tips', change: (i) => i.BLTips.push(null), error: /BLTips\[5\]: 'Null' is not a subtype of type 'String'/ },
  { what: 'activity.show as a string', change: (i) => (i.activity.show = 'yes'), error: /activity.show: 'String' is not a subtype of type 'bool'/ },
];

for (const { what, change, error } of refusedByBlora) {
  test(`BloraLauncher lib/tools/server_info.dart: the strict reader throws on ${what}, as Dart would (the whole answer is lost)`, async () => {
    const info = await getJson(site.url, '/api/info');
    change(info);
    assert.throws(() => bloraLauncherConfigFromJson(info), (e: Error) => e instanceof ClientRefused && error.test(e.message));
  });
}

test('BloraLauncher lib/tools/server_info.dart:277 and lib/pages/home_page.dart:286-291: a file without BLTips is served BLTips [] and still parses', async () => {
  const file = example();
  delete file.BLTips;
  await withLauncherConfig(file, async (url) => {
    const info = await getJson(url, '/api/info');
    assert.equal(info.BLTips, []);
    assert.equal(bloraLauncherConfigFromJson(info).blTips, []);
  });
});

test('BloraLauncher lib/tools/server_info.dart: a key the launchers need, missing or mistyped, is logged at load with key and type, and the file is still served', async () => {
  const file = example();
  file.latestVersion = 26;
  delete file.downloads.stable.windows.hashes.gitcode;
  file.activity.show = 'yes';
  await withLauncherConfig(file, async (url, logs) => {
    const info = await getJson(url, '/api/info');
    assert.is(info.latestVersion, 26, 'served as it is');
    const warnings = logs.filter((line) => line.level === 'warn' && /a key the launchers read/.test(line.msg));
    const byKey = Object.fromEntries(warnings.map((line) => [line.key, [line.expected, line.found]]));
    assert.equal(byKey, {
      latestVersion: ['a string', 'a number'],
      'downloads.stable.windows.hashes.gitcode': ['a SHA-256 of 64 hex digits', 'missing'],
      'activity.show': ['true or false', 'a string'],
    });
    assert.ok(warnings.every((line) => typeof line.readBy === 'string' && line.readBy.length > 0), 'each names who reads it');
  });
});

test('Bloret-Launcher modules/update.py (_pick_download_url, _find_url_metadata, _extract_bound_sha256, download_update_artifact): the example lets the Windows updater update', async () => {
  const info = await getJson(site.url, '/api/info');
  const artifact = bloretWindowsUpdate(info);
  const windows = example().downloads.stable.windows;
  assert.equal(artifact, { url: windows.github, sha256: windows.hashes.github });
});

test('Bloret-Launcher modules/update.py: the original server\'s downloads (gitcode/github objects only) give the Windows updater no URL at all', () => {
  const original = example();
  delete original.downloads.stable.windows;
  assert.throws(() => bloretWindowsUpdate(original), (e: Error) => e instanceof ClientRefused && /no URL/.test(e.message));
});

test('Bloret-Launcher modules/update.py (download_update_artifact): a windows entry without hashes is refused for want of a SHA-256', () => {
  const file = example();
  delete file.downloads.stable.windows.hashes;
  assert.throws(() => bloretWindowsUpdate(file), (e: Error) => e instanceof ClientRefused && /SHA-256/.test(e.message));
});

test('Bloret-Launcher modules/update.py: windows placed after a mirror holding the same URL hides the hash (why it comes first), and the load warns', async () => {
  const file = example();
  const { windows, ...mirrors } = file.downloads.stable;
  file.downloads.stable = { ...mirrors, windows };
  await withLauncherConfig(file, async (url, logs) => {
    const info = await getJson(url, '/api/info');
    assert.throws(() => bloretWindowsUpdate(info), (e: Error) => e instanceof ClientRefused && /SHA-256/.test(e.message));
    assert.ok(logs.some((line) => line.key === 'downloads.stable.windows' && /come before/.test(line.expected)), 'the order is reported');
  });
});

test('Bloret-Launcher-Setup installer (on_version_info_received): reads latestVersion and downloads.stable.gitcode.exe', async () => {
  const info = await getJson(site.url, '/api/info');
  assert.type(info.latestVersion, 'string');
  assert.match(info.downloads.stable.gitcode.exe, /^https:\/\/.+\.exe$/);
});

// ---- Fast download ---------------------------------------------------------------------

test('Bloret-Launcher modules/install.py (fetch_fastdownload_versions) and BloraLauncher lib/pages/download_page.dart@016546f:60-65: versions are {version, url} objects both read', async () => {
  const fast = await getJson(site.url, '/api/fastdownload');
  assert.is(fast.success, true);
  const expected = example().fastdownload.versions as Array<{ version: string; url: string }>;
  assert.equal(bloretFastDownloadVersions(fast), Object.fromEntries(expected.map((v) => [v.version, v.url])));
  for (const url of Object.values(bloretFastDownloadVersions(fast))) assert.match(url, /^https:\/\/.+\.git$/, 'cloned with git over https');
  assert.equal(bloraFastDownloadVersions(fast), expected.map((v) => v.version));
});

test('Bloret-Launcher modules/install.py: plain version strings would lose the whole list (why the example uses objects)', () => {
  const refused = (e: Error) => e instanceof ClientRefused;
  assert.throws(() => bloretFastDownloadVersions({ enabled: true, versions: ['1.21.4'] }), refused);
  assert.throws(() => bloraFastDownloadVersions({ enabled: true, versions: ['1.21.4'] }), refused);
});

// ---- Plugin install --------------------------------------------------------------------

test('Bloret-Launcher modules/plugin_install_request.py (parse_bloret_url, parse_install_params): install_url with a sha256 is a request the launcher verifies', async () => {
  const sha = 'ab12'.repeat(16);
  const download = 'https://github.com/bloret-plugins/minimap/releases/download/v1.2.0/minimap.zip';
  await pluginIn(client, users, 'approved', 'compat.hashed', { download, sha256: sha.toUpperCase() });
  const link = (await client.get('/apps/api/plugins/compat.hashed/install-link')).body;
  assert.ok(link.install_url.endsWith(`&source=store&sha256=${sha}`), link.install_url);
  const linkOnly = { name: '', version: '', author: '', description: '', permissions: [] };
  assert.equal(bloretInstallLink(link.install_url), { download, id: 'compat.hashed', ...linkOnly, sha256: sha, source: 'store' });
  // The same request posted to the launcher's local HTTP endpoint (the propose body).
  const read = bloretInstallParams(link.propose);
  assert.equal([read.download, read.id, read.sha256, read.source], [download, 'compat.hashed', sha, 'store']);
});

test('Bloret-Launcher modules/plugin_install_request.py (parse_install_params): propose carries what the confirmation dialog shows: name, version, author, description, permissions, sha256', async () => {
  const sha = 'cd34'.repeat(16);
  const download = 'https://github.com/bloret-plugins/dialog/releases/download/v2.1.0/dialog.zip';
  await pluginIn(client, users, 'approved', 'compat.dialog', {
    name: 'Dialog Shown', version: '2.1.0', author: 'Sam Chen', description: 'Shows what it asks for', permissions: ['ui.home', 'process.exec'], download, sha256: sha,
  });
  const link = (await client.get('/apps/api/plugins/compat.dialog/install-link')).body;
  assert.equal(bloretInstallParams(link.propose), {
    download, id: 'compat.dialog', name: 'Dialog Shown', version: '2.1.0', author: 'Sam Chen', description: 'Shows what it asks for',
    sha256: sha, source: 'store', permissions: ['ui.home', 'process.exec'],
  });
  // install_url keeps SPEC's shape exactly: nothing of the dialog's in it.
  assert.is(link.install_url, `bloret://plugin/install?download=${encodeURIComponent(download)}&id=compat.dialog&source=store&sha256=${sha}`);
});

test('BloraLauncher lib/services/plugin_install_server.dart (_PluginProposeDialog): the propose body parses with its strict types, and has no `manifest` key it would read instead', async () => {
  await pluginIn(client, users, 'approved', 'compat.blora', {
    name: 'Blora Dialog', version: '1.4.0', author: '', description: '', permissions: ['ui.tools'], download: 'https://github.com/bloret-plugins/blora/releases/download/v1/blora.zip',
  });
  const { propose } = (await client.get('/apps/api/plugins/compat.blora/install-link')).body;
  assert.not.ok('manifest' in propose);
  // No author: the submitter's name, as the manifest's `master`.
  assert.equal(bloraProposal(propose), { name: 'Blora Dialog', version: '1.4.0', author: 'alice', description: '', permissions: ['ui.tools'] });
  assert.throws(() => bloraProposal({ ...propose, permissions: [{ id: 'ui.tools', risk: 'safe' }] }), (e: Error) => e instanceof ClientRefused && /permissions\[0\]/.test(e.message), 'objects would not do');
});

test('Bloret-Launcher modules/plugin_store.py (normalize_listing): each list item\'s size and min_launcher are read; an outside link\'s null size reads as 0', async () => {
  const sha = 'ef56'.repeat(16);
  const hosted = `https://store.bloret.com/pkg/${sha}/compat.sized-1.0.0.zip`;
  await pluginIn(client, users, 'approved', 'compat.sized', { download: hosted, sha256: sha, version: '1.0.0' });
  await testSql()`
    insert into plugin_versions (plugin_id, version, sha256, size, download, entry_count, files, status, manifest)
    values ('compat.sized', '1.0.0', ${sha}, 48213, ${hosted}, 1, '[]', 'approved', ${testSql().json({ id: 'compat.sized', min_launcher_version: '25.3' })})`;
  await pluginIn(client, users, 'approved', 'compat.linked', { download: 'https://github.com/bloret-plugins/linked/releases/download/v1/linked.zip' });
  const listing = bloretStoreListing((await client.get('/apps/api/plugins?limit=500')).body, `${site.url}/apps/api/plugins`);
  const sized = listing.find((item) => item.id === 'compat.sized')!;
  assert.equal([sized.size, sized.minLauncher], [48213, '25.3']);
  const linked = listing.find((item) => item.id === 'compat.linked')!;
  assert.equal([linked.size, linked.minLauncher], [0, '']);
});

test('Bloret-Launcher modules/plugin_install_request.py: without a sha256 the link carries none (the launcher then skips verification)', async () => {
  const download = 'https://github.com/bloret-plugins/clock/releases/download/v1/clock.zip';
  await pluginIn(client, users, 'approved', 'compat-plain', { download });
  const link = (await client.get('/apps/api/plugins/compat-plain/install-link')).body;
  assert.not.match(link.install_url, /sha256/);
  assert.is(link.sha256, null);
  assert.not.ok('sha256' in link.propose);
  assert.equal(bloretInstallLink(link.install_url), { download, id: 'compat-plain', name: '', version: '', author: '', description: '', sha256: '', source: 'store', permissions: [] });
});

test('Bloret-Launcher modules/plugin_install_request.py (DEFAULT_TRUSTED_HOSTS): a download host outside the launcher\'s trusted list is refused by the launcher', () => {
  assert.ok(BLORET_TRUSTED_HOSTS.includes('github.com'));
  assert.throws(
    () => bloretInstallLink('bloret://plugin/install?download=https%3A%2F%2Fdownloads.example.com%2Fp.zip&id=p&source=store'),
    (e: Error) => e instanceof ClientRefused && /downloads\.example\.com/.test(e.message),
  );
});

test('Bloret-Launcher modules/plugin_store.py (normalize_listing): a relative icon is joined to the API base, not the host, so only absolute icon URLs show', () => {
  const apiBase = 'https://launcher.bloret.net/apps/api/plugins';
  assert.is(bloretStoreIcon('/img/1/abc.webp', apiBase), 'https://launcher.bloret.net/apps/api/plugins/img/1/abc.webp', 'the wrong place');
  assert.is(bloretStoreIcon('https://img.bloret.net/img/1/abc.webp', apiBase), 'https://img.bloret.net/img/1/abc.webp');
});

test('Bloret-Launcher modules/plugin_store.py (refresh, _as_list, normalize_listing): an icon from the media upload is absolute and shows in the launcher\'s store list', async () => {
  const uploaded = await uploadThroughSite(site.url, users.alice, await makePng(8), 'icon.png');
  assert.is(uploaded.status, 200, JSON.stringify(uploaded.body));
  const icon = uploaded.body.data.url as string;
  assert.ok(icon.startsWith(IMAGE_PUBLIC_BASE + '/img/'), `absolute: ${icon}`);
  await pluginIn(client, users, 'approved', 'compat.icon', { download: 'https://github.com/bloret-plugins/icon/releases/download/v1/icon.zip', icon });
  // The launcher reads DEFAULT_STORE_API, the list without parameters.
  const apiBase = `${site.url}/apps/api/plugins`;
  const listing = bloretStoreListing((await client.get('/apps/api/plugins')).body, apiBase);
  const item = listing.find((entry) => entry.id === 'compat.icon');
  assert.ok(item, 'listed');
  assert.is(item!.icon, icon, 'kept as it is');
  // Behind the proxy: the same path on the image host itself.
  const image = await fetch(imghost.url + new URL(item!.icon).pathname);
  assert.is(image.status, 200);
  assert.is(image.headers.get('content-type'), 'image/png');
});

test('Bloret-Launcher modules/plugin_store.py (normalize_listing, detail_url): /apps/plugin/<id> is the plugin\'s page', async () => {
  await pluginIn(client, users, 'approved', 'compat.page', {
    name: 'Compat Page',
    download: 'https://github.com/bloret-plugins/page/releases/download/v1/page.zip',
  });
  const listing = bloretStoreListing((await client.get('/apps/api/plugins')).body, `${site.url}/apps/api/plugins`);
  const item = listing.find((entry) => entry.id === 'compat.page')!;
  const path = new URL(item.detailUrl).pathname;
  assert.is(path, '/apps/plugin/compat.page');
  const page = await fetch(site.url + path);
  assert.is(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.ok((await page.text()).includes('Compat Page'));
});

// ---- Icons (service B) -------------------------------------------------------------------

const sfNames: Array<{ name: string; source: string }> = [
  { name: 'house', source: 'Bloret-Translation-Collector views/404.ejs:10' },
  { name: 'xmark', source: 'Bloret-Translation-Collector views/app/org-new.ejs:42' },
  { name: 'puzzlepiece', source: 'a BloretCrew web panel\'s plugin nav item (img.bloret.net/SF/puzzlepiece?color=white)' },
  { name: 'building.2', source: 'Bloret-Translation-Collector views/app/orgs.ejs:8' },
  { name: 'macbook', source: 'Bloret-Launcher-New-Website views/index.ejs:1022-1023' },
  { name: 'clock', source: 'Bloret-Translation-Collector views/app/tasks.ejs:51' },
];
// Colours as the clients write them: `?color=white` (index.ejs) and
// `?color=${encodeURIComponent('#ff0000')}` (Bloret-Translation-Collector src/lib/sf-icon.ts:49).
const colours = [
  { query: 'white', expected: 'white' },
  { query: encodeURIComponent('#ff0000'), expected: '#ff0000' },
];

for (const { name, source } of sfNames) {
  test(`${source}: /SF/${name} (and .svg) with ?color=white and ?color=%23ff0000 is a recoloured SVG`, async () => {
    for (const suffix of ['', '.svg']) {
      for (const { query, expected } of colours) {
        const answer = await rawRequest(imghost.url, 'GET', `/SF/${name}${suffix}?color=${query}`);
        assert.is(answer.status, 200, `/SF/${name}${suffix}?color=${query}`);
        assert.is(answer.headers['content-type'], 'image/svg+xml');
        assert.match(answer.body, /^<svg[\s>]/);
        assert.ok(answer.body.includes(`stroke="${expected}"`) || answer.body.includes(`fill="${expected}"`), `coloured ${expected}`);
      }
    }
  });
}

test('Bloret-Image-Website server.js (app.use(\'/SFs\', express.static(SF_DIRECTORY))): /SFs/{file}.svg serves the icon file unchanged', async () => {
  const raw = await rawRequest(imghost.url, 'GET', '/SFs/home.svg');
  assert.is(raw.status, 200);
  assert.is(raw.headers['content-type'], 'image/svg+xml');
  assert.match(raw.body, /stroke="currentColor"/, 'not recoloured');
  const alias = await rawRequest(imghost.url, 'GET', '/SFs/house.svg');
  assert.ok(alias.bytes.equals(raw.bytes), 'an SF name, as the original folder held, is the same file');
});

test('Bloret-Image-Website docs/SF-API.md (/api/svg_files): a JSON array of real .svg file names, which the /SF page lists', async () => {
  const files = await getJson(imghost.url, '/api/svg_files');
  assert.ok(Array.isArray(files));
  assert.ok((files as unknown as string[]).every((file) => file.endsWith('.svg')));
  assert.not.ok((files as unknown as string[]).includes('house.svg'), 'aliases are not files');
});

test.run();
