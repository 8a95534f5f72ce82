// GET /apps/plugin/:id: the page the Bloret launcher links to for a plugin
// (Bloret-Launcher modules/plugin_store.py, when a listing has no detail_url).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { pluginIn, storeClient, storeUsers, type StoreClient, type Users } from './store-client.js';

let site: TestServer;
let client: StoreClient;
let users: Users;

test.before(async () => {
  site = await startTestSite();
  client = storeClient(site.url);
  users = await storeUsers(testSql());
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

test('an approved plugin has a page with its details, the install link and the page CSP', async () => {
  const sha = 'c'.repeat(64);
  await pluginIn(client, users, 'approved', 'page-plugin', {
    name: 'Page Plugin',
    version: '2.5.0',
    author: 'Page Author',
    description: 'Short text',
    longDescription: 'Line one\nLine two',
    tags: ['map', 'hud'],
    sha256: sha,
    icon: 'https://images.example.com/icon.png',
  });
  const response = await fetch(`${site.url}/apps/plugin/page-plugin`);
  assert.is(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
  assert.match(response.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  const html = await response.text();
  for (const text of ['Page Plugin', '2.5.0', 'Page Author', 'Short text', 'Line one\nLine two', '<li>map</li>', sha, 'https://images.example.com/icon.png']) {
    assert.ok(html.includes(text), text);
  }
  const download = encodeURIComponent('https://downloads.example.com/page-plugin.zip');
  assert.ok(html.includes(`href="bloret://plugin/install?download=${download}&amp;id=page-plugin&amp;source=store&amp;sha256=${sha}"`));
  assert.ok(!/<script/i.test(html));
  assert.is((await fetch(`${site.url}/static/store/plugin.css`)).status, 200);
});

test('everything from the record is escaped', async () => {
  await pluginIn(client, users, 'approved', 'page-escape', {
    name: '<script>alert(1)</script>',
    author: '"><img src=x onerror=alert(2)>',
    description: "it's & <b>bold</b>",
    tags: ['<i>'],
  });
  const html = await (await fetch(`${site.url}/apps/plugin/page-escape`)).text();
  assert.ok(!html.includes('<script>alert(1)'));
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  assert.ok(html.includes('&quot;&gt;&lt;img src=x onerror=alert(2)&gt;'));
  assert.ok(html.includes('it&#39;s &amp; &lt;b&gt;bold&lt;/b&gt;'));
  assert.ok(html.includes('<li>&lt;i&gt;</li>'));
});

test('visibility as the detail: hidden plugins are a 404 page; the author sees their pending one without an install button', async () => {
  await pluginIn(client, users, 'pending', 'page-pending');
  const hidden = await fetch(`${site.url}/apps/plugin/page-pending`);
  assert.is(hidden.status, 404);
  assert.match(hidden.headers.get('content-type') ?? '', /^text\/html/);
  assert.is((await fetch(`${site.url}/apps/plugin/page-pending`, { headers: { cookie: users.bob } })).status, 404);
  const own = await fetch(`${site.url}/apps/plugin/page-pending`, { headers: { cookie: users.alice } });
  assert.is(own.status, 200);
  const html = await own.text();
  assert.ok(html.includes('pending'));
  assert.ok(!html.includes('bloret://'));
  for (const path of ['no-such-plugin', 'ab', '%00abc']) {
    assert.is((await fetch(`${site.url}/apps/plugin/${path}`)).status, 404, path);
  }
});

test.run();
