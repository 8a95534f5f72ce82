// Submitting, editing and reviewing plugins: docs/api.md "Plugin store" and "Edits
// and reviews" (answers, field rules, edits, review), over HTTP against the real site.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HttpError } from '../../../src/http/errors.js';
import { imageLink, imageLinkRule } from '../../../src/services/site/store/image-links.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { newPlugin, pluginIn, storeClient, storeUsers, type StoreClient, type Users } from './store-client.js';

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

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

test('POST /apps/api/plugins: 201 {success, plugin}, pending, submitter from the session', async () => {
  const answer = await client.post('/apps/api/plugins', newPlugin('create-one', { sha256: 'AB'.repeat(32), featured: undefined }), { cookie: users.alice });
  assert.is(answer.status, 201, JSON.stringify(answer.body));
  assert.is(answer.body.success, true);
  const plugin = answer.body.plugin;
  assert.is(plugin.id, 'create-one');
  assert.is(plugin.status, 'pending');
  assert.is(plugin.submitter, 'alice');
  assert.is(plugin.sha256, 'ab'.repeat(32));
  assert.is(plugin.installCount, 0);
  assert.is(plugin.ratingAvg, 0);
  assert.is(plugin.ratingCount, 0);
  assert.is(plugin.featured, false);
  assert.match(plugin.createdAt, ISO);
  assert.match(plugin.updatedAt, ISO);
  assert.is(plugin.pendingUpdate, null);
  assert.is(plugin.review, null);
  for (const key of ['name', 'version', 'author', 'description', 'download', 'permissions', 'tags']) assert.ok(key in plugin, key);
});


// One row per field rule: each failure is 400 VALIDATION_FAILED naming its field.
const invalid: Array<{ what: string; fields: Record<string, unknown>; field: string }> = [
  { what: 'id missing', fields: { id: undefined }, field: 'id' },
  { what: 'id of 2 characters', fields: { id: 'ab' }, field: 'id' },
  { what: 'id of 129 characters', fields: { id: 'a'.repeat(129) }, field: 'id' },
  { what: 'id with a space', fields: { id: 'my plugin' }, field: 'id' },
  { what: 'id with a slash', fields: { id: 'a/b/c' }, field: 'id' },
  { what: 'id not a string', fields: { id: 12345 }, field: 'id' },
  { what: 'name missing', fields: { name: undefined }, field: 'name' },
  { what: 'name empty', fields: { name: '' }, field: 'name' },
  { what: 'name only spaces', fields: { name: '   ' }, field: 'name' },
  { what: 'name of 101 characters', fields: { name: 'n'.repeat(101) }, field: 'name' },
  { what: 'name of 101 emoji (code points, not UTF-16 units)', fields: { name: '😀'.repeat(101) }, field: 'name' },
  { what: 'name not a string', fields: { name: ['x'] }, field: 'name' },
  { what: 'name with NUL', fields: { name: 'a\u0000b' }, field: 'name' },
  { what: 'version missing', fields: { version: undefined }, field: 'version' },
  { what: 'version of 65 characters', fields: { version: '1'.repeat(65) }, field: 'version' },
  { what: 'author of 101 characters', fields: { author: 'a'.repeat(101) }, field: 'author' },
  { what: 'author not a string', fields: { author: 5 }, field: 'author' },
  { what: 'description of 501 characters', fields: { description: 'd'.repeat(501) }, field: 'description' },
  { what: 'longDescription of 20,001 characters', fields: { longDescription: 'l'.repeat(20_001) }, field: 'longDescription' },
  { what: 'download missing', fields: { download: undefined }, field: 'download' },
  { what: 'download over http', fields: { download: 'http://example.com/p.zip' }, field: 'download' },
  { what: 'download not a zip', fields: { download: 'https://example.com/p.jar' }, field: 'download' },
  { what: 'download with a user and password', fields: { download: 'https://user:pw@example.com/p.zip' }, field: 'download' },
  { what: 'download not a URL', fields: { download: 'p.zip' }, field: 'download' },
  { what: 'download .zip only in the query', fields: { download: 'https://example.com/get?f=p.zip' }, field: 'download' },
  { what: 'sha256 of 63 characters', fields: { sha256: 'a'.repeat(63) }, field: 'sha256' },
  { what: 'sha256 not hexadecimal', fields: { sha256: 'g'.repeat(64) }, field: 'sha256' },
  { what: 'url over http', fields: { url: 'http://example.com' }, field: 'url' },
  { what: 'url not a URL', fields: { url: 'example.com' }, field: 'url' },
  { what: 'icon over http', fields: { icon: 'http://example.com/i.png' }, field: 'icon' },
  { what: 'icon protocol-relative', fields: { icon: '//evil.example/i.png' }, field: 'icon' },
  { what: 'icon relative path', fields: { icon: 'icons/i.png' }, field: 'icon' },
  { what: 'icon javascript:', fields: { icon: 'javascript:alert(1)' }, field: 'icon' },
  { what: '21 tags', fields: { tags: Array.from({ length: 21 }, (_, i) => `tag${i}`) }, field: 'tags' },
  { what: 'a tag of 33 characters', fields: { tags: ['t'.repeat(33)] }, field: 'tags' },
  { what: 'tags not strings', fields: { tags: [1, 2] }, field: 'tags' },
  { what: 'tags an object', fields: { tags: { a: 1 } }, field: 'tags' },
  { what: '33 permissions', fields: { permissions: Array.from({ length: 33 }, (_, i) => `perm${i}`).join(',') }, field: 'permissions' },
  { what: 'a permission of 65 characters', fields: { permissions: 'p'.repeat(65) }, field: 'permissions' },
  { what: '9 screenshots', fields: { screenshots: Array.from({ length: 9 }, () => '/media/s.png') }, field: 'screenshots' },
  { what: 'screenshot over http', fields: { screenshots: ['http://example.com/s.png'] }, field: 'screenshots' },
  { what: 'screenshot object without url', fields: { screenshots: [{ webpUrl: '/media/s.webp' }] }, field: 'screenshots' },
  { what: 'screenshot object with an http webpUrl', fields: { screenshots: [{ url: '/media/s.png', webpUrl: 'http://x/s.webp' }] }, field: 'screenshots' },
  { what: 'screenshots a string', fields: { screenshots: '/media/s.png' }, field: 'screenshots' },
  { what: 'screenshot a number', fields: { screenshots: [5] }, field: 'screenshots' },
  // Regression: any page can log its viewers out. Images are fetched with the cookie
  // by everyone who sees the plugin: in-site ones never under /apps/ (where a GET
  // can act), however written, and never the site's own host in a link.
  { what: 'an icon of /apps/auth/logout (any page can log its viewers out)', fields: { icon: '/apps/auth/logout' }, field: 'icon' },
  { what: 'an icon of another /apps/ path', fields: { icon: '/apps/api/me' }, field: 'icon' },
  { what: 'an icon of /apps itself', fields: { icon: '/apps' }, field: 'icon' },
  { what: 'an icon of /apps with a query', fields: { icon: '/apps?x=1' }, field: 'icon' },
  { what: 'an icon of /APPS/ in upper case', fields: { icon: '/APPS/auth/logout' }, field: 'icon' },
  { what: 'an icon of /apps/ with an escaped letter', fields: { icon: '/%61pps/auth/logout' }, field: 'icon' },
  { what: 'an icon of /apps/ with a malformed escape after it', fields: { icon: '/apps/%zz' }, field: 'icon' },
  { what: 'an icon of another host by //', fields: { icon: '//evil.example/i.png' }, field: 'icon' },
  { what: 'an icon of another host by /\\', fields: { icon: '/\\evil.example/i.png' }, field: 'icon' },
  { what: 'an icon with a control character', fields: { icon: '/uploads/a\u0001.png' }, field: 'icon' },
  { what: 'an icon with a space', fields: { icon: '/uploads/a b.png' }, field: 'icon' },
  { what: 'an icon climbing out of /static/', fields: { icon: '/static/../apps/auth/logout' }, field: 'icon' },
  { what: 'an icon climbing out by escaped dots', fields: { icon: '/media/%2e%2e/apps/auth/logout' }, field: 'icon' },
  { what: 'an icon climbing out by a backslash', fields: { icon: '/static\\..\\apps\\auth\\logout' }, field: 'icon' },
  { what: 'an icon with an escaped slash', fields: { icon: '/static/..%2Fapps/auth/logout' }, field: 'icon' },
  { what: 'an icon on the site\'s own host', fields: { icon: 'https://site.test/apps/auth/logout' }, field: 'icon' },
  { what: 'an icon on the site\'s own host, even under /static/', fields: { icon: 'https://site.test/static/i.png' }, field: 'icon' },
  { what: 'an icon on the site\'s own host in upper case with a trailing dot', fields: { icon: 'https://SITE.TEST./apps/auth/logout' }, field: 'icon' },
  { what: 'an icon on the site\'s own host, another port', fields: { icon: 'https://site.test:8443/apps/auth/logout' }, field: 'icon' },
  { what: 'a screenshot of /apps/auth/logout', fields: { screenshots: ['/apps/auth/logout'] }, field: 'screenshots' },
  { what: 'a screenshot url of /apps/auth/logout', fields: { screenshots: [{ url: '/apps/auth/logout' }] }, field: 'screenshots' },
  { what: 'a screenshot webpUrl of /apps/auth/logout', fields: { screenshots: [{ url: '/media/s.png', webpUrl: '/apps/auth/logout' }] }, field: 'screenshots' },
  { what: 'a screenshot on the site\'s own host', fields: { screenshots: [{ url: 'https://site.test/apps/auth/logout' }] }, field: 'screenshots' },
];

// The contract: status, installCount, ratingAvg and ratingCount cannot be set by a
// body, and a plugin is created pending. A body naming them (a record read and sent
// back whole) is taken without them, as unknown fields are.
const SERVER_SET = { status: 'approved', installCount: 1000, ratingAvg: 5, ratingCount: 9 };

test('POST with the server\'s fields in the body: 201, created pending with none of them', async () => {
  const answer = await client.post('/apps/api/plugins', newPlugin('server-set', SERVER_SET), { cookie: users.alice });
  assert.is(answer.status, 201, JSON.stringify(answer.body));
  const plugin = answer.body.plugin;
  assert.equal([plugin.status, plugin.installCount, plugin.ratingAvg, plugin.ratingCount], ['pending', 0, 0, 0]);
});

test('PATCH with the server\'s fields in the body changes none of them, the author\'s or an administrator\'s', async () => {
  await pluginIn(client, users, 'pending', 'server-set-patch');
  for (const cookie of [users.alice, users.admin]) {
    const answer = await client.patch('/apps/api/plugins/server-set-patch', { ...SERVER_SET, description: 'changed' }, { cookie });
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    const plugin = answer.body.plugin;
    assert.equal([plugin.status, plugin.installCount, plugin.ratingAvg, plugin.ratingCount, plugin.description], ['pending', 0, 0, 0, 'changed']);
  }
  // A record read and sent back whole.
  const record = (await client.get('/apps/api/plugins/server-set-patch', { cookie: users.alice })).body.plugin;
  assert.is((await client.patch('/apps/api/plugins/server-set-patch', { ...record, featured: undefined }, { cookie: users.alice })).status, 200);
});

let counter = 0;
for (const { what, fields, field } of invalid) {
  test(`POST refuses ${what}: 400 VALIDATION_FAILED, field ${field}`, async () => {
    const body = newPlugin(`invalid-${counter++}`, fields);
    const answer = await client.post('/apps/api/plugins', body, { cookie: users.alice });
    assert.is(answer.status, 400, JSON.stringify(answer.body));
    assert.equal({ success: answer.body.success, code: answer.body.code, field: answer.body.field }, { success: false, code: 'VALIDATION_FAILED', field });
    assert.type(answer.body.error, 'string');
  });
}

test('PATCH applies the same field rules (one row per editable field)', async () => {
  await pluginIn(client, users, 'pending', 'patch-rules');
  const rows = invalid.filter((row) => row.fields[row.field] !== undefined && row.field !== 'id');
  for (const { what, fields, field } of rows) {
    const answer = await client.patch('/apps/api/plugins/patch-rules', fields, { cookie: users.alice });
    assert.is(answer.status, 400, what);
    assert.is(answer.body.code, 'VALIDATION_FAILED', what);
    assert.is(answer.body.field, field, what);
  }
});

test('every field at its limit is accepted, lengths counted in code points', async () => {
  const answer = await client.post('/apps/api/plugins', {
    id: 'L'.repeat(128),
    name: '😀'.repeat(100),
    version: 'v'.repeat(64),
    author: '作'.repeat(100),
    description: 'd'.repeat(500),
    longDescription: 'l'.repeat(20_000),
    download: 'https://cdn.example.com/files/Plugin.ZIP',
    sha256: 'F'.repeat(64),
    url: 'https://example.com/home',
    icon: '/media/icon.png',
    tags: Array.from({ length: 20 }, (_, i) => `t${i}`.padEnd(32, 'x')),
    permissions: Array.from({ length: 32 }, (_, i) => `p${i}`.padEnd(64, 'x')),
    screenshots: [...Array.from({ length: 7 }, (_, i) => `https://example.com/${i}.png`), { url: '/media/s.png', webpUrl: '/media/s.webp' }],
  }, { cookie: users.alice });
  assert.is(answer.status, 201, JSON.stringify(answer.body));
  assert.is(answer.body.plugin.sha256, 'f'.repeat(64));
  assert.is(answer.body.plugin.longDescription.length, 20_000);
});

test('tags and permissions: split on , ， and white space, trimmed, empty dropped, duplicates removed', async () => {
  const cases: Array<{ what: string; input: unknown; tags: string[] }> = [
    { what: 'one string with every separator', input: 'map, tools，render  ui\tnet\nx', tags: ['map', 'tools', 'render', 'ui', 'net', 'x'] },
    { what: 'an array whose items hold separators', input: [' map ', 'tools,render', '', '  '], tags: ['map', 'tools', 'render'] },
    { what: 'duplicates, tags compared without case', input: ['Map', 'map', 'MAP', 'tools', 'tools'], tags: ['Map', 'tools'] },
    { what: 'empty string', input: '', tags: [] },
    { what: 'null', input: null, tags: [] },
  ];
  let n = 0;
  for (const { what, input, tags } of cases) {
    const answer = await client.post('/apps/api/plugins', newPlugin(`split-${n++}`, { tags: input, permissions: input }), { cookie: users.alice });
    assert.is(answer.status, 201, what);
    assert.equal(answer.body.plugin.tags, tags, what);
  }
  const permissions = await client.post('/apps/api/plugins', newPlugin('split-perm', { permissions: 'Net net,  NET' }), { cookie: users.alice });
  assert.equal(permissions.body.plugin.permissions, ['Net', 'net', 'NET'], 'permissions keep case');
});

test('screenshots keep strings and {url, webpUrl} objects; unknown fields are ignored', async () => {
  const answer = await client.post('/apps/api/plugins', newPlugin('shots', {
    screenshots: ['https://example.com/a.png', { url: '/media/b.png', webpUrl: '/media/b.webp', alt: 'dropped' }, { url: '/media/c.png' }],
    color: 'blue',
    submitter: 'mallory',
    createdAt: '2000-01-01T00:00:00.000Z',
  }), { cookie: users.alice });
  assert.is(answer.status, 201);
  assert.equal(answer.body.plugin.screenshots, ['https://example.com/a.png', { url: '/media/b.png', webpUrl: '/media/b.webp' }, { url: '/media/c.png' }]);
  assert.is(answer.body.plugin.color, undefined);
  assert.is(answer.body.plugin.submitter, 'alice');
  assert.is.not(answer.body.plugin.createdAt, '2000-01-01T00:00:00.000Z');
});

test('regression: in-site images outside /static/, /media/ and /img/ (/uploads/s6.png) are kept, as CONTRACT allows any path with one leading /', async () => {
  const icons = [
    '/uploads/s6.png',
    '/icon.png',
    '/api/info',
    '/Static/i.png',
    '/appsx/i.png',
    '/uploads/apps/i.png',
    '/uploads/%E5%9B%BE.png?v=1#top',
    '/uploads/%E0%A4%A.png',
    '/static/app/icon.png',
    '/media/icon.png?v=2',
    '/img/1700000000/' + 'a'.repeat(32) + '.webp',
    'https://img.example.com/site.test/apps/x.png',
    'https://site.test.example.com/i.png',
  ];
  for (const [index, icon] of icons.entries()) {
    const answer = await client.post('/apps/api/plugins', newPlugin(`image-ok-${index}`, { icon, screenshots: [icon, { url: icon, webpUrl: icon }] }), { cookie: users.alice });
    assert.is(answer.status, 201, `${icon}: ${JSON.stringify(answer.body)}`);
    assert.is(answer.body.plugin.icon, icon);
    assert.equal(answer.body.plugin.screenshots, [icon, { url: icon, webpUrl: icon }]);
  }
});

test('image links: an image host served from the site\'s own host keeps its uploads (IMAGE_HOST_PUBLIC_URL/img/ only)', () => {
  const rule = imageLinkRule({ publicUrl: 'https://store.example', imageHostPublicUrl: 'https://store.example/images' });
  const upload = 'https://store.example/images/img/1700000000/' + 'b'.repeat(32) + '.webp';
  assert.is(imageLink('icon', upload, rule), upload);
  for (const icon of ['https://store.example/apps/auth/logout', 'https://store.example/images/img/../../apps/auth/logout', 'https://store.example/images/imgx', 'https://store.example/static/i.png', 'https://store.example:8443/images/x']) {
    assert.throws(() => imageLink('icon', icon, rule), (error: HttpError) => error.code === 'VALIDATION_FAILED' && error.field === 'icon', icon);
  }
  const apart = imageLinkRule({ publicUrl: 'https://store.example', imageHostPublicUrl: 'https://img.store.example' });
  assert.throws(() => imageLink('icon', upload, apart), (error: HttpError) => error.field === 'icon', 'another image host: the site\'s host is refused');
});

// Regression: links came back rewritten by the URL parser ("https://example.com"
// as "https://example.com/"), so install_url was built from a link the author never
// wrote. A plain link is kept as sent; only one the parser must repair is rewritten.
const LINKS_AS_STORED = [
  { what: 'a homepage without a path is kept as sent', field: 'url', sent: 'https://example.com', stored: 'https://example.com' },
  { what: 'a download with upper-case host and name is kept as sent', field: 'download', sent: 'https://CDN.Example.com/Files/Plugin.ZIP', stored: 'https://CDN.Example.com/Files/Plugin.ZIP' },
  { what: 'a download with a query is kept as sent', field: 'download', sent: 'https://e.com/get/p.zip?v=1&x=%20', stored: 'https://e.com/get/p.zip?v=1&x=%20' },
  { what: 'an icon link is kept as sent', field: 'icon', sent: 'https://img.example.com', stored: 'https://img.example.com' },
  { what: 'an upper-case scheme is written the parser\'s way', field: 'download', sent: 'HTTPS://e.com/a.zip', stored: 'https://e.com/a.zip' },
  { what: 'a space is escaped', field: 'download', sent: 'https://e.com/my plugin.zip', stored: 'https://e.com/my%20plugin.zip' },
  { what: 'a backslash becomes the slash a browser reads', field: 'url', sent: 'https://e.com\\docs', stored: 'https://e.com/docs' },
  { what: 'surrounding white space is trimmed', field: 'url', sent: '  https://e.com/x  ', stored: 'https://e.com/x' },
];
for (const [index, row] of LINKS_AS_STORED.entries()) {
  test(`links: ${row.what}`, async () => {
    const answer = await client.post('/apps/api/plugins', newPlugin(`link-kept-${index}`, { [row.field]: row.sent }), { cookie: users.alice });
    assert.is(answer.status, 201, JSON.stringify(answer.body));
    assert.is(answer.body.plugin[row.field], row.stored);
  });
}

test('POST: the id is taken case-insensitively: 409 CONFLICT', async () => {
  await pluginIn(client, users, 'pending', 'Taken-Id');
  for (const id of ['Taken-Id', 'taken-id', 'TAKEN-ID']) {
    const answer = await client.post('/apps/api/plugins', newPlugin(id), { cookie: users.bob });
    assert.is(answer.status, 409, id);
    assert.is(answer.body.code, 'CONFLICT');
  }
});

test('POST without login: 401 UNAUTHORIZED; without JSON: 415; malformed JSON: 400 BAD_REQUEST', async () => {
  const anonymous = await client.post('/apps/api/plugins', newPlugin('anon-plugin'));
  assert.is(anonymous.status, 401);
  assert.is(anonymous.body.code, 'UNAUTHORIZED');
  const text = await fetch(site.url + '/apps/api/plugins', { method: 'POST', headers: { cookie: users.alice, 'content-type': 'text/plain' }, body: '{}' });
  assert.is(text.status, 415);
  const malformed = await client.post('/apps/api/plugins', '{"id":', { cookie: users.alice });
  assert.is(malformed.status, 400);
  assert.is(malformed.body.code, 'BAD_REQUEST');
  const array = await client.post('/apps/api/plugins', '[1]', { cookie: users.alice });
  assert.is(array.status, 400);
});

test('featured: 403 FORBIDDEN for a non-administrator (create and edit); an administrator sets it', async () => {
  const create = await client.post('/apps/api/plugins', newPlugin('feat-user', { featured: true }), { cookie: users.alice });
  assert.is(create.status, 403);
  assert.is(create.body.code, 'FORBIDDEN');
  await pluginIn(client, users, 'approved', 'feat-plugin');
  const edit = await client.patch('/apps/api/plugins/feat-plugin', { featured: true }, { cookie: users.alice });
  assert.is(edit.status, 403);
  assert.is(edit.body.code, 'FORBIDDEN');
  const byAdmin = await client.patch('/apps/api/plugins/feat-plugin', { featured: true }, { cookie: users.admin });
  assert.is(byAdmin.status, 200);
  assert.is(byAdmin.body.plugin.featured, true);
  assert.is(byAdmin.body.plugin.status, 'approved');
  const bad = await client.patch('/apps/api/plugins/feat-plugin', { featured: 'yes' }, { cookie: users.admin });
  assert.is(bad.status, 400);
  assert.is(bad.body.field, 'featured');
  const adminCreate = await client.post('/apps/api/plugins', newPlugin('feat-admin', { featured: true }), { cookie: users.admin });
  assert.is(adminCreate.status, 201);
  assert.is(adminCreate.body.plugin.featured, true);
  assert.is(adminCreate.body.plugin.status, 'pending');
});

// The state table of docs/api.md, one test per row, plus its edits and reviews.

test('state: pending + review approve by an administrator -> approved and public', async () => {
  await pluginIn(client, users, 'pending', 'st-approve');
  const answer = await client.post('/apps/api/plugins/st-approve/review', { action: 'approve' }, { cookie: users.admin });
  assert.is(answer.status, 200);
  assert.is(answer.body.success, true);
  assert.is(answer.body.plugin.status, 'approved');
  assert.equal({ ...answer.body.plugin.review, at: undefined }, { action: 'approve', reason: null, at: undefined });
  assert.match(answer.body.plugin.review.at, ISO);
  assert.is((await client.get('/apps/api/plugins/st-approve')).status, 200);
});

test('state: pending + review reject with a reason -> rejected and hidden from the public', async () => {
  await pluginIn(client, users, 'pending', 'st-reject');
  const answer = await client.post('/apps/api/plugins/st-reject/review', { action: 'reject', reason: ' Broken download ' }, { cookie: users.admin });
  assert.is(answer.status, 200);
  assert.is(answer.body.plugin.status, 'rejected');
  assert.is(answer.body.plugin.review.action, 'reject');
  assert.is(answer.body.plugin.review.reason, 'Broken download');
  assert.is((await client.get('/apps/api/plugins/st-reject')).status, 404);
  const own = await client.get('/apps/api/plugins/st-reject', { cookie: users.alice });
  assert.is(own.body.plugin.review.reason, 'Broken download');
});

test('state: approved + PATCH by the author -> a pending update; the live version stays', async () => {
  const before = await pluginIn(client, users, 'approved', 'st-update', { version: '1.0.0', tags: ['map'] });
  const answer = await client.patch('/apps/api/plugins/st-update', { version: '2.0.0', tags: 'map, render', sha256: null }, { cookie: users.alice });
  assert.is(answer.status, 200);
  assert.is(answer.body.plugin.status, 'approved');
  assert.is(answer.body.plugin.version, '1.0.0');
  assert.equal(answer.body.plugin.tags, ['map']);
  assert.equal({ ...answer.body.plugin.pendingUpdate, submittedAt: undefined }, { version: '2.0.0', tags: ['map', 'render'], sha256: null, submittedAt: undefined });
  assert.match(answer.body.plugin.pendingUpdate.submittedAt, ISO);
  assert.is(answer.body.plugin.updatedAt, before.updatedAt);
  const publicView = await client.get('/apps/api/plugins/st-update');
  assert.is(publicView.body.plugin.version, '1.0.0');
  assert.is(publicView.body.plugin.pendingUpdate, undefined);
  assert.is(publicView.body.plugin.review, undefined);
  const manifest = await client.get('/apps/api/plugins/st-update/manifest.json');
  assert.is(manifest.body.version, '1.0.0');
});

test('a second author edit merges into the pending update', async () => {
  await pluginIn(client, users, 'approved', 'st-merge', { name: 'Old', version: '1.0.0' });
  await client.patch('/apps/api/plugins/st-merge', { version: '2.0.0', name: 'New' }, { cookie: users.alice });
  const answer = await client.patch('/apps/api/plugins/st-merge', { version: '3.0.0', description: 'Better' }, { cookie: users.alice });
  assert.equal({ ...answer.body.plugin.pendingUpdate, submittedAt: undefined }, { name: 'New', version: '3.0.0', description: 'Better', submittedAt: undefined });
  assert.is(answer.body.plugin.name, 'Old');
});

test('review approve of a pending update applies it; the plugin stays approved', async () => {
  await pluginIn(client, users, 'approved', 'st-apply', { version: '1.0.0', sha256: 'a'.repeat(64) });
  await client.patch('/apps/api/plugins/st-apply', { version: '2.0.0', sha256: null }, { cookie: users.alice });
  const answer = await client.post('/apps/api/plugins/st-apply/review', { action: 'approve' }, { cookie: users.admin });
  assert.is(answer.status, 200);
  assert.is(answer.body.plugin.status, 'approved');
  assert.is(answer.body.plugin.version, '2.0.0');
  assert.is(answer.body.plugin.sha256, null);
  assert.is(answer.body.plugin.pendingUpdate, null);
  assert.is((await client.get('/apps/api/plugins/st-apply/manifest.json')).body.version, '2.0.0');
});

test('review reject of a pending update discards it; the plugin stays approved as it was', async () => {
  await pluginIn(client, users, 'approved', 'st-discard', { version: '1.0.0' });
  await client.patch('/apps/api/plugins/st-discard', { version: '2.0.0' }, { cookie: users.alice });
  const answer = await client.post('/apps/api/plugins/st-discard/review', { action: 'reject', reason: 'no' }, { cookie: users.admin });
  assert.is(answer.status, 200);
  assert.is(answer.body.plugin.status, 'approved');
  assert.is(answer.body.plugin.version, '1.0.0');
  assert.is(answer.body.plugin.pendingUpdate, null);
  assert.equal({ action: answer.body.plugin.review.action, reason: answer.body.plugin.review.reason }, { action: 'reject', reason: 'no' });
});

test('review with nothing to review: 409 CONFLICT (approve an approved plugin, reject a rejected one)', async () => {
  await pluginIn(client, users, 'approved', 'st-nothing');
  await pluginIn(client, users, 'rejected', 'st-nothing-rejected');
  for (const [id, action] of [['st-nothing', 'approve'], ['st-nothing-rejected', 'reject']] as const) {
    const answer = await client.post(`/apps/api/plugins/${id}/review`, { action }, { cookie: users.admin });
    assert.is(answer.status, 409, `${id} ${action}`);
    assert.is(answer.body.code, 'CONFLICT');
  }
});

// A review of a plugin without a pending update: approve sets approved, reject
// sets rejected (with the reason), whatever the status was.
test('review without a pending update: a rejected plugin can be approved, an approved one rejected with a reason', async () => {
  await pluginIn(client, users, 'rejected', 'st-second-chance');
  const approved = await client.post('/apps/api/plugins/st-second-chance/review', { action: 'approve' }, { cookie: users.admin });
  assert.is(approved.status, 200);
  assert.is(approved.body.plugin.status, 'approved');
  assert.is(approved.body.plugin.review.action, 'approve');
  await pluginIn(client, users, 'approved', 'st-taken-down');
  const rejected = await client.post('/apps/api/plugins/st-taken-down/review', { action: 'reject', reason: 'malware' }, { cookie: users.admin });
  assert.is(rejected.status, 200);
  assert.is(rejected.body.plugin.status, 'rejected');
  assert.equal({ action: rejected.body.plugin.review.action, reason: rejected.body.plugin.review.reason }, { action: 'reject', reason: 'malware' });
  assert.is((await client.get('/apps/api/plugins/st-taken-down')).status, 404);
});

test('review: 401 without login, 403 for a non-administrator, 404 for a missing plugin, 400 for a bad action', async () => {
  await pluginIn(client, users, 'pending', 'st-review-rights');
  const anonymous = await client.post('/apps/api/plugins/st-review-rights/review', { action: 'approve' });
  assert.is(anonymous.status, 401);
  const author = await client.post('/apps/api/plugins/st-review-rights/review', { action: 'approve' }, { cookie: users.alice });
  assert.is(author.status, 403);
  assert.is(author.body.code, 'FORBIDDEN');
  const missing = await client.post('/apps/api/plugins/no-such-plugin/review', { action: 'approve' }, { cookie: users.admin });
  assert.is(missing.status, 404);
  for (const body of [{ action: 'publish' }, {}, { action: 'reject', reason: 5 }]) {
    const bad = await client.post('/apps/api/plugins/st-review-rights/review', body, { cookie: users.admin });
    assert.is(bad.status, 400, JSON.stringify(body));
    assert.is(bad.body.code, 'VALIDATION_FAILED');
  }
  assert.is((await client.get('/apps/api/plugins/st-review-rights', { cookie: users.alice })).body.plugin.status, 'pending');
});

test('an author edit of a pending plugin applies at once and stays pending', async () => {
  await pluginIn(client, users, 'pending', 'st-edit-pending', { version: '1.0.0' });
  const answer = await client.patch('/apps/api/plugins/st-edit-pending', { version: '1.1.0', icon: 'https://example.com/i.png' }, { cookie: users.alice });
  assert.is(answer.status, 200);
  assert.is(answer.body.plugin.version, '1.1.0');
  assert.is(answer.body.plugin.icon, 'https://example.com/i.png');
  assert.is(answer.body.plugin.status, 'pending');
  assert.is(answer.body.plugin.pendingUpdate, null);
});

test('an author edit of a rejected plugin applies and puts it back to pending', async () => {
  await pluginIn(client, users, 'rejected', 'st-edit-rejected', { version: '1.0.0' });
  const answer = await client.patch('/apps/api/plugins/st-edit-rejected', { version: '1.0.1' }, { cookie: users.alice });
  assert.is(answer.status, 200);
  assert.is(answer.body.plugin.version, '1.0.1');
  assert.is(answer.body.plugin.status, 'pending');
  const review = await client.post('/apps/api/plugins/st-edit-rejected/review', { action: 'approve' }, { cookie: users.admin });
  assert.is(review.body.plugin.status, 'approved');
});

test('an administrator edit applies at once and keeps the status (pending, approved, rejected)', async () => {
  for (const status of ['pending', 'approved', 'rejected'] as const) {
    const id = `st-admin-${status}`;
    await pluginIn(client, users, status, id, { version: '1.0.0' });
    const answer = await client.patch(`/apps/api/plugins/${id}`, { version: '9.9.9' }, { cookie: users.admin });
    assert.is(answer.status, 200, status);
    assert.is(answer.body.plugin.version, '9.9.9', status);
    assert.is(answer.body.plugin.status, status);
    assert.is(answer.body.plugin.pendingUpdate, null);
  }
});

test('PATCH: 401 without login; another user: 403 on an approved plugin, 404 on one they may not see; 404 for a missing plugin', async () => {
  await pluginIn(client, users, 'approved', 'st-other-approved');
  await pluginIn(client, users, 'pending', 'st-other-pending');
  assert.is((await client.patch('/apps/api/plugins/st-other-approved', { version: '2' })).status, 401);
  const approved = await client.patch('/apps/api/plugins/st-other-approved', { version: '2' }, { cookie: users.bob });
  assert.is(approved.status, 403);
  assert.is(approved.body.code, 'FORBIDDEN');
  const hidden = await client.patch('/apps/api/plugins/st-other-pending', { version: '2' }, { cookie: users.bob });
  assert.is(hidden.status, 404);
  assert.is(hidden.body.code, 'NOT_FOUND');
  assert.is((await client.get('/apps/api/plugins/st-other-pending', { cookie: users.alice })).body.plugin.version, '1.0.0');
  assert.is((await client.patch('/apps/api/plugins/nope-nope', { version: '2' }, { cookie: users.bob })).status, 404);
  // Regression: ids that cannot exist (NUL, too short, a slash) never reach the database.
  for (const id of ['a%00bc', 'ab', 'a%2Fbc', 'x'.repeat(129)]) {
    assert.is((await client.patch(`/apps/api/plugins/${id}`, { version: '2' }, { cookie: users.alice })).status, 404, id);
    assert.is((await client.post(`/apps/api/plugins/${id}/review`, { action: 'approve' }, { cookie: users.admin })).status, 404, id);
  }
  const renamed = await client.patch('/apps/api/plugins/st-other-approved', { id: 'another-id' }, { cookie: users.alice });
  assert.is(renamed.status, 400);
  assert.is(renamed.body.field, 'id');
});

test('ids are looked up case-insensitively; answers carry the stored spelling', async () => {
  await pluginIn(client, users, 'approved', 'CaseKept');
  const answer = await client.get('/apps/api/plugins/casekept');
  assert.is(answer.status, 200);
  assert.is(answer.body.plugin.id, 'CaseKept');
});

test('20 parallel edits of one approved plugin leave one coherent pending update', async () => {
  await pluginIn(client, users, 'approved', 'st-parallel', { version: '1.0.0', description: 'live' });
  const edits = Array.from({ length: 20 }, (_, i) => client.patch('/apps/api/plugins/st-parallel', { version: `2.0.${i}`, description: `edit ${i}` }, { cookie: users.alice }));
  const answers = await Promise.all(edits);
  for (const answer of answers) assert.is(answer.status, 200);
  const rows = await testSql()`select changed, version, description from plugin_pending_updates where plugin_id = 'st-parallel'`;
  assert.is(rows.length, 1);
  assert.equal([...rows[0]!.changed].sort(), ['description', 'version']);
  // Coherent: version and description come from the same (last applied) edit.
  const n = /^2\.0\.(\d+)$/.exec(rows[0]!.version)?.[1];
  assert.ok(n !== undefined);
  assert.is(rows[0]!.description, `edit ${n}`);
  const live = await client.get('/apps/api/plugins/st-parallel');
  assert.is(live.body.plugin.version, '1.0.0');
  assert.is(live.body.plugin.description, 'live');
});

test.run();
