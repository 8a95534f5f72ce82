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

test('an approved plugin has a page: the store page shell (its script reads the detail API), with the page CSP', async () => {
  await pluginIn(client, users, 'approved', 'page-plugin', { name: 'Page Plugin' });
  const response = await fetch(`${site.url}/apps/plugin/page-plugin`);
  assert.is(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
  const csp = response.headers.get('content-security-policy') ?? '';
  assert.match(csp, /script-src 'self'/);
  assert.not.match(csp, /unsafe-inline/);
  const html = await response.text();
  assert.match(html, /<body data-page="plugin"/);
  assert.match(html, /<script type="module" src="\/static\/app\/plugin\.[0-9a-f]{10}\.js">/);
  // The name in the title, the description in a meta tag; the rest comes from the
  // API as JSON and is written as text by the script (test/browser/store-pages.test.ts).
  assert.match(html, /<title>Page Plugin · Bloret plugin store<\/title>/);
  assert.match(html, /<meta name="description" content="The page-plugin plugin">/);
  const detail = await fetch(`${site.url}/apps/api/plugins/page-plugin?include=related`);
  assert.is(detail.status, 200);
});

test('the name and description in the head are escaped', async () => {
  await pluginIn(client, users, 'approved', 'page-escape', { name: '</title><script>alert(1)</script>', description: '"><img src=x onerror=alert(2)> & $& $1' });
  const html = await (await fetch(`${site.url}/apps/plugin/page-escape`)).text();
  assert.ok(html.includes('<title>&#60;/title&#62;&#60;script&#62;alert(1)&#60;/script&#62; · Bloret plugin store</title>'), html.slice(0, 400));
  assert.ok(html.includes('content="&#34;&#62;&#60;img src=x onerror=alert(2)&#62; &#38; $&#38; $1"'));
  assert.is(html.match(/<script/g)!.length, 3, 'only the page module and the two data blocks (strings, rules)');
});

// Regression: the plugin page's <title> interpreted $ patterns of the plugin name
// ("A $` B" put the text before {name} in the catalogue string into the title).
const dollarNames = [
  { what: '$` (the text before)', name: 'A $` B' },
  { what: "$' (the text after)", name: "A $' B" },
  { what: '$& (the match)', name: 'A $& B' },
  { what: '$$ (one dollar)', name: 'A $$ B' },
  { what: '$<name> and $1', name: 'A $<n> $1 B' },
];
for (const [index, c] of dollarNames.entries()) {
  test(`regression: the plugin page's <title> interprets $ patterns of the plugin name (${c.what})`, async () => {
    await pluginIn(client, users, 'approved', `page-dollar-${index}`, { name: c.name });
    for (const [language, after] of [['en', ' · Bloret plugin store'], ['zh-CN', ' · Bloret 插件商店']] as const) {
      const html = await (await fetch(`${site.url}/apps/plugin/page-dollar-${index}`, { headers: { 'accept-language': language } })).text();
      const title = /<title>([^<]*)<\/title>/.exec(html)![1]!;
      const shown = title.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
      assert.is(shown, c.name + after, language);
    }
  });
}

test('visibility as the detail: hidden plugins are a 404 page; the author sees their pending one without an install button', async () => {
  await pluginIn(client, users, 'pending', 'page-pending');
  const hidden = await fetch(`${site.url}/apps/plugin/page-pending`);
  assert.is(hidden.status, 404);
  assert.match(hidden.headers.get('content-type') ?? '', /^text\/html/);
  assert.is((await fetch(`${site.url}/apps/plugin/page-pending`, { headers: { cookie: users.bob } })).status, 404);
  const own = await fetch(`${site.url}/apps/plugin/page-pending`, { headers: { cookie: users.alice } });
  assert.is(own.status, 200);
  assert.is((await fetch(`${site.url}/apps/plugin/PAGE-PENDING`, { headers: { cookie: users.alice } })).status, 200, 'ids are case-insensitive');
  const admin = await fetch(`${site.url}/apps/plugin/page-pending`, { headers: { cookie: users.admin } });
  assert.is(admin.status, 200);
  for (const path of ['no-such-plugin', 'ab', '%00abc']) {
    const missing = await fetch(`${site.url}/apps/plugin/${path}`);
    assert.is(missing.status, 404, path);
    // The same page, whose script then says the plugin is not available.
    assert.match(await missing.text(), /<body data-page="plugin"/);
  }
});

test.run();
