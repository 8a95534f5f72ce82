// A package on the store's own image host reaches a plugin by an upload the site
// reads and checks, never as a `download` link typed into a create or an edit: the
// image host keeps the file of an upload whose manifest was refused (another
// plugin's id), and as a link it was approved without checks or warning and
// installed, hash and all, into the other plugin's folder.
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestUser } from '../../../helpers/store-fixtures.js';
import type { TestServer } from '../../../helpers/servers.js';
import { as, startStoreSite } from '../../../helpers/store-site.js';
import { newPlugin, type StoreClient } from '../store-client.js';
import { uploadVersion, zipOf } from './versions-client.js';

/** The image host's public address: https, as in production, so links to it pass the https rule. */
const MEDIA = 'https://media.test';
let imghost: TestServer, site: TestServer, client: StoreClient;
let author: TestUser, admin: TestUser, closeStore: () => Promise<void>;

test.before(async () => {
  const settings = { IMAGE_HOST_PUBLIC_URL: MEDIA };
  ({ imghost, site, client, author, admin, close: closeStore } = await startStoreSite('hdl', { imageHost: true, settings }));
});
test.after(() => closeStore());

const manifest = (id: string, version: string) => JSON.stringify({ id, name: `Tool ${id}`, version });

async function approvedPlugin(id: string): Promise<void> {
  assert.is((await client.post('/apps/api/plugins', newPlugin(id), as(author))).status, 201);
  assert.is((await client.post(`/apps/api/plugins/${id}/review`, { action: 'approve' }, as(admin))).status, 200);
}

test("a refused upload's file on the image host cannot be linked as a download: 400 field \"download\", nothing proposed", async () => {
  await approvedPlugin('hdl-victim');
  await approvedPlugin('hdl-evil');
  // Refused (it names another plugin), but the image host keeps and serves the file.
  const zip = zipOf({ 'plugin.json': manifest('hdl-victim', '9.0.0'), 'main.py': 'import os' });
  const refused = await uploadVersion(site.url, 'hdl-evil', { zip, changelog: 'x', order: ['file', 'changelog'] }, as(author));
  assert.is(refused.status, 400, JSON.stringify(refused.body));
  const sha = createHash('sha256').update(zip).digest('hex');
  assert.is((await fetch(`${imghost.url}/pkg/${sha}/p.zip`, { method: 'HEAD' })).status, 200, 'kept on the image host');

  const links = [
    { what: 'the hosted form of the link', download: `${MEDIA}/pkg/${sha}/hdl-evil-9.0.0.zip` },
    { what: 'another file name', download: `${MEDIA}/pkg/${sha}/p.zip` },
    { what: 'the host in capitals', download: `https://MEDIA.test/pkg/${sha}/p.zip` },
    { what: 'a trailing dot on the host', download: `https://media.test./pkg/${sha}/p.zip` },
    { what: 'another port', download: `https://media.test:8443/pkg/${sha}/p.zip` },
    { what: 'a dot segment before /pkg/', download: `${MEDIA}/x/../pkg/${sha}/p.zip` },
    { what: 'an escaped letter in /pkg/', download: `${MEDIA}/%70kg/${sha}/p.zip` },
    { what: '/PKG/ in capitals', download: `${MEDIA}/PKG/${sha}/p.zip` },
  ];
  for (const cookie of [author.cookie, admin.cookie]) {
    for (const c of links) {
      const answer = await client.patch('/apps/api/plugins/hdl-evil', { download: c.download }, { cookie });
      assert.is(answer.status, 400, `${c.what}: ${JSON.stringify(answer.body)}`);
      assert.is(answer.body.code, 'VALIDATION_FAILED', c.what);
      assert.is(answer.body.field, 'download', c.what);
    }
  }
  const record = (await client.get('/apps/api/plugins/hdl-evil', as(admin))).body.plugin;
  assert.is(record.pendingUpdate, null);
  assert.is(record.download, 'https://downloads.example.com/hdl-evil.zip');

  const created = await client.post('/apps/api/plugins', newPlugin('hdl-new', { download: `${MEDIA}/pkg/${sha}/p.zip` }), as(author));
  assert.is(created.status, 400, JSON.stringify(created.body));
  assert.is(created.body.field, 'download');
});

test("the plugin's own hosted files stay its download: its live file sent again, an approved version's file", async () => {
  await approvedPlugin('hdl-own');
  const first = await uploadVersion(site.url, 'hdl-own', { zip: zipOf({ 'plugin.json': manifest('hdl-own', '1.1.0'), 'main.py': 'print(1)' }), changelog: 'x', order: ['file', 'changelog'] }, as(author));
  assert.is(first.status, 201, JSON.stringify(first.body));
  const record = (await client.get('/apps/api/plugins/hdl-own', as(admin))).body.plugin;
  assert.is((await client.post('/apps/api/plugins/hdl-own/review', { action: 'approve', revision: record.revision }, as(admin))).status, 200);
  const live = (await client.get('/apps/api/plugins/hdl-own', as(author))).body.plugin.download;
  assert.ok(live.startsWith(`${MEDIA}/pkg/`), live);
  const same = await client.patch('/apps/api/plugins/hdl-own', { download: live, description: 'Same file' }, as(author));
  assert.is(same.status, 200, JSON.stringify(same.body));
  // An outside link is still an author's choice, on the image host's host too when outside its packages.
  for (const download of ['https://github.com/a/b/releases/download/v2/p.zip', `${MEDIA}/downloads/hdl-own.zip`]) {
    const outside = await client.patch('/apps/api/plugins/hdl-own', { download }, as(author));
    assert.is(outside.status, 200, `${download}: ${JSON.stringify(outside.body)}`);
  }
  // Back to the approved version's file.
  const back = await client.patch('/apps/api/plugins/hdl-own', { download: live }, as(author));
  assert.is(back.status, 200, JSON.stringify(back.body));
});

test.run();
