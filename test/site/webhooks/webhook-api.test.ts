// The webhook API: set (https and public addresses only), show (never the secret),
// rotate, remove (cancelling pending deliveries), and the delivery history; who
// may call it (a session; 401 without, 403 to an API token or a cross-site write).
// Deliveries themselves are in delivery.test.ts; this site runs no worker, so
// queued deliveries stay pending here.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../src/db/pool.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { insertPlugin, testUser, type TestUser } from '../../helpers/store-fixtures.js';
import { tokenClient } from '../auth/tokens/token-client.js';

let site: TestServer;
let call: ReturnType<typeof tokenClient>;
let sql: Sql;
let admin: TestUser;

test.before(async () => {
  sql = testSql();
  site = await startTestSite({ WEBHOOK_ALLOWED_PORTS: '9443, 10443' }, sql, { start: false });
  call = tokenClient(site.url);
  admin = await testUser(sql, 'wh-admin', { admin: true });
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

const SECRET = /^whsec_[A-Za-z0-9_-]{43}$/;

test('no webhook: GET answers null; PUT sets it and shows the secret once; GET never shows it', async () => {
  const user = await testUser(sql, 'wh-set');
  assert.equal((await call('GET', '/apps/api/webhook', { cookie: user.cookie })).body, { success: true, webhook: null });

  const set = await call('PUT', '/apps/api/webhook', { cookie: user.cookie }, { url: 'https://hooks.example.com/in?x=1' });
  assert.is(set.status, 200, JSON.stringify(set.body));
  assert.equal(Object.keys(set.body.webhook).sort(), ['createdAt', 'secret', 'updatedAt', 'url']);
  assert.is(set.body.webhook.url, 'https://hooks.example.com/in?x=1');
  assert.match(set.body.webhook.secret, SECRET);
  assert.is(set.headers.get('cache-control'), 'no-store');

  const shown = await call('GET', '/apps/api/webhook', { cookie: user.cookie });
  assert.equal(Object.keys(shown.body.webhook).sort(), ['createdAt', 'updatedAt', 'url']);

  // A later PUT keeps the secret and does not show it; rotateSecret makes and shows a new one.
  const changed = await call('PUT', '/apps/api/webhook', { cookie: user.cookie }, { url: 'https://Hooks.Example.com/other' });
  assert.equal(Object.keys(changed.body.webhook).sort(), ['createdAt', 'updatedAt', 'url']);
  assert.is(changed.body.webhook.url, 'https://hooks.example.com/other');
  const [kept] = await sql<Array<{ secret: string }>>`select secret from webhooks where user_id = ${user.id}`;
  assert.is(kept!.secret, set.body.webhook.secret);
  const rotated = await call('PUT', '/apps/api/webhook', { cookie: user.cookie }, { url: 'https://hooks.example.com/other', rotateSecret: true });
  assert.match(rotated.body.webhook.secret, SECRET);
  assert.is.not(rotated.body.webhook.secret, set.body.webhook.secret);
  const [now] = await sql<Array<{ secret: string }>>`select secret from webhooks where user_id = ${user.id}`;
  assert.is(now!.secret, rotated.body.webhook.secret);
});

const badUrls: Array<[string, unknown]> = [
  ['missing', undefined],
  ['not a string', 42],
  ['null', null],
  ['an array', ['https://hooks.example.com/in']],
  ['an object', { href: 'https://hooks.example.com/in' }],
  ['a boolean', true],
  ['blank', '   '],
  ['no host', 'https://:443/in'],
  ['an IPv6 zone', 'https://[fe80::1%25eth0]/in'],
  ['a public IPv6 address with a zone', 'https://[2606:4700::1111%25eth0]/in'],
  ['a bad IDN', 'https://xn--a.example/in'],
  ['a forbidden host code point', 'https://ho<st.example/in'],
  ['too long once encoded', 'https://hooks.example.com/' + 'é'.repeat(1000)],
  ['IPv4-mapped private, dotted', 'https://[::ffff:10.0.0.1]/in'],
  ['NAT64 loopback', 'https://[64:ff9b::7f00:1]/in'],
  ['6to4 private', 'https://[2002:c0a8:0101::1]/in'],
  ['IPv6 documentation', 'https://[2001:db8::1]/in'],
  ['empty', ''],
  ['not a URL', 'hooks example'],
  ['http', 'http://hooks.example.com/in'],
  ['ftp', 'ftp://hooks.example.com/in'],
  ['javascript', 'javascript:alert(1)'],
  ['a user name', 'https://user@hooks.example.com/in'],
  ['a password', 'https://user:pass@hooks.example.com/in'],
  ['over 2048 characters', 'https://hooks.example.com/' + 'a'.repeat(2030)],
  ['loopback', 'https://127.0.0.1/in'],
  ['loopback, other spelling', 'https://2130706433/in'],
  ['loopback, hex', 'https://0x7f.0.0.1/in'],
  ['private 10/8', 'https://10.1.2.3/in'],
  ['private 172.16/12', 'https://172.20.0.1/in'],
  ['private 192.168/16', 'https://192.168.1.1:8443/in'],
  ['CGNAT', 'https://100.64.0.1/in'],
  ['cloud metadata', 'https://169.254.169.254/latest/meta-data'],
  ['unspecified', 'https://0.0.0.0/in'],
  ['multicast', 'https://224.0.0.1/in'],
  ['broadcast', 'https://255.255.255.255/in'],
  ['IPv6 loopback', 'https://[::1]/in'],
  ['IPv6 unspecified', 'https://[::]/in'],
  ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/in'],
  ['IPv4-mapped metadata', 'https://[::ffff:a9fe:a9fe]/in'],
  ['IPv6 link-local', 'https://[fe80::1]/in'],
  ['IPv6 unique-local', 'https://[fd00::1]/in'],
  ['IPv6 multicast', 'https://[ff02::1]/in'],
  ['localhost', 'https://localhost/in'],
  ['a localhost name', 'https://app.localhost./in'],
  ['port 22 on a public address', 'https://1.1.1.1:22/'],
  ['port 22 on a name', 'https://hooks.example.com:22/in'],
  ['port 80', 'https://hooks.example.com:80/in'],
  ['port 8080', 'https://hooks.example.com:8080/in'],
  ['port 444', 'https://[2606:4700::1111]:444/in'],
  ['port 65535', 'https://hooks.example.com:65535/in'],
  ['port 0', 'https://hooks.example.com:0/in'],
];
for (const [what, url] of badUrls) {
  test(`PUT /apps/api/webhook refuses ${what} -> 400 VALIDATION_FAILED on url`, async () => {
    const answer = await call('PUT', '/apps/api/webhook', { cookie: admin.cookie }, url === undefined ? {} : { url });
    assert.is(answer.status, 400, JSON.stringify(answer.body));
    assert.equal([answer.body.code, answer.body.field], ['VALIDATION_FAILED', 'url']);
  });
}

test('any port on a public host is accepted (regression): https://1.1.1.1:22/ is 400 VALIDATION_FAILED on url; 443, 8443 and WEBHOOK_ALLOWED_PORTS are accepted', async () => {
  const user = await testUser(sql, 'wh-ports');
  const refused = await call('PUT', '/apps/api/webhook', { cookie: user.cookie }, { url: 'https://1.1.1.1:22/' });
  assert.is(refused.status, 400, JSON.stringify(refused.body));
  assert.equal([refused.body.code, refused.body.field], ['VALIDATION_FAILED', 'url']);
  assert.match(refused.body.error, /443, 8443, 9443, 10443/, JSON.stringify(refused.body));
  assert.equal((await call('GET', '/apps/api/webhook', { cookie: user.cookie })).body.webhook, null);
  const accepted: Array<[string, string]> = [
    ['https://1.1.1.1/', 'https://1.1.1.1/'],
    ['https://1.1.1.1:443/', 'https://1.1.1.1/'],
    ['https://1.1.1.1:8443/', 'https://1.1.1.1:8443/'],
    ['https://hooks.example.com:9443/in', 'https://hooks.example.com:9443/in'],
    ['https://hooks.example.com:10443/in', 'https://hooks.example.com:10443/in'],
  ];
  for (const [url, stored] of accepted) {
    const answer = await call('PUT', '/apps/api/webhook', { cookie: user.cookie }, { url });
    assert.is(answer.status, 200, `${url}: ${JSON.stringify(answer.body)}`);
    assert.is(answer.body.webhook.url, stored);
  }
});

test('PUT accepts public addresses; refuses a bad rotateSecret and a non-object body', async () => {
  for (const url of ['https://93.184.215.14/in', 'https://[2606:4700::1111]:8443/in', 'https://hooks.example.com:8443/a/b']) {
    const answer = await call('PUT', '/apps/api/webhook', { cookie: admin.cookie }, { url });
    assert.is(answer.status, 200, `${url}: ${JSON.stringify(answer.body)}`);
  }
  const rotate = await call('PUT', '/apps/api/webhook', { cookie: admin.cookie }, { url: 'https://hooks.example.com/', rotateSecret: 'yes' });
  assert.equal([rotate.status, rotate.body.field], [400, 'rotateSecret']);
  assert.is((await call('PUT', '/apps/api/webhook', { cookie: admin.cookie }, ['https://hooks.example.com/'])).status, 400);
  for (const body of [null, 'https://hooks.example.com/', 42]) {
    const answer = await call('PUT', '/apps/api/webhook', { cookie: admin.cookie }, body);
    assert.equal([answer.status, answer.body.code], [400, 'BAD_REQUEST'], JSON.stringify(body));
  }
  // An IDN host is stored as its ASCII (punycode) form.
  const idn = await call('PUT', '/apps/api/webhook', { cookie: admin.cookie }, { url: 'https://bücher.example/in' });
  assert.is(idn.status, 200, JSON.stringify(idn.body));
  assert.is(idn.body.webhook.url, 'https://xn--bcher-kva.example/in');
  assert.is((await call('DELETE', '/apps/api/webhook', { cookie: admin.cookie })).status, 200);
});

test('a notification queues a delivery in its transaction; the history shows it; DELETE cancels pending ones', async () => {
  const author = await testUser(sql, 'wh-author');
  const other = await testUser(sql, 'wh-other');
  assert.is((await call('PUT', '/apps/api/webhook', { cookie: author.cookie }, { url: 'https://hooks.example.com/author' })).status, 200);
  await insertPlugin(sql, 'wh-plugin', author, 'pending');
  await insertPlugin(sql, 'wh-plugin-2', other, 'pending');
  assert.is((await call('POST', '/apps/api/plugins/wh-plugin/review', { cookie: admin.cookie }, { action: 'reject', reason: 'No icon' })).status, 200);
  assert.is((await call('POST', '/apps/api/plugins/wh-plugin/review', { cookie: admin.cookie }, { action: 'approve' })).status, 200);
  // A user without a webhook gets a notification and no delivery.
  assert.is((await call('POST', '/apps/api/plugins/wh-plugin-2/review', { cookie: admin.cookie }, { action: 'approve' })).status, 200);

  const history = await call('GET', '/apps/api/webhook/deliveries', { cookie: author.cookie });
  assert.is(history.status, 200, JSON.stringify(history.body));
  assert.is(history.body.total, 2);
  const [newest, oldest] = history.body.deliveries;
  assert.equal(Object.keys(newest).sort(), ['attempts', 'createdAt', 'deliveredAt', 'id', 'kind', 'lastError', 'lastStatusCode', 'nextAttemptAt', 'notificationId', 'status']);
  assert.equal([newest.kind, newest.status, newest.attempts, newest.deliveredAt], ['review.approved', 'pending', 0, null]);
  assert.is(oldest.kind, 'review.rejected');
  assert.ok(newest.id > oldest.id, 'newest first');
  const notifications = await call('GET', '/apps/api/notifications', { cookie: author.cookie });
  assert.equal(history.body.deliveries.map((d: any) => d.notificationId), notifications.body.notifications.map((n: any) => n.id));
  assert.is((await call('GET', '/apps/api/webhook/deliveries', { cookie: other.cookie })).body.total, 0);
  assert.is((await call('GET', '/apps/api/webhook/deliveries?limit=1&offset=1', { cookie: author.cookie })).body.deliveries[0].id, oldest.id);

  assert.equal((await call('DELETE', '/apps/api/webhook', { cookie: author.cookie })).body, { success: true });
  const after = await call('GET', '/apps/api/webhook/deliveries', { cookie: author.cookie });
  assert.equal(after.body.deliveries.map((d: any) => [d.status, d.nextAttemptAt]), [['failed', null], ['failed', null]]);
  assert.equal(after.body.deliveries.map((d: any) => d.lastError), ['webhook_removed', 'webhook_removed']);
  assert.equal((await call('GET', '/apps/api/webhook', { cookie: author.cookie })).body, { success: true, webhook: null });
  // Removing again is harmless.
  assert.is((await call('DELETE', '/apps/api/webhook', { cookie: author.cookie })).status, 200);
});

// Rows written before the coarse reasons held the detailed text: shown as its reason, never as written.
const storedErrors: Array<[string, string | null, string | null]> = [
  ['none', null, null],
  ['a refused address (the old text named the address)', 'WEBHOOK_ADDRESS_REFUSED: vm resolves to 127.0.0.1, which is not public', 'address_not_allowed'],
  ['a refused literal address', 'WEBHOOK_ADDRESS_REFUSED: address 10.0.0.1 is not public', 'address_not_allowed'],
  ['a status', 'HTTP 500 (not a 2xx answer)', 'http_status'],
  ['a redirect', 'HTTP 302 (redirect not followed)', 'redirect'],
  ['DNS', 'ENOTFOUND: getaddrinfo ENOTFOUND hooks.internal', 'dns_failed'],
  ['a refused connection', 'ECONNREFUSED: connect ECONNREFUSED 1.1.1.1:22', 'connect_failed'],
  ['a connect timeout', 'UND_ERR_CONNECT_TIMEOUT: Connect Timeout Error (attempted address: 1.1.1.1:22, timeout: 5000ms)', 'timeout'],
  ['the deadline', '23: The operation was aborted due to timeout', 'timeout'],
  ['a certificate', 'DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate', 'tls_failed'],
  ['TLS', 'ERR_SSL_WRONG_VERSION_NUMBER: ssl3_get_record:wrong version number', 'tls_failed'],
  ['a shutdown', 'interrupted: the site was shutting down', 'interrupted'],
  ['a removed webhook', 'cancelled: the webhook was removed', 'webhook_removed'],
  ['anything else', 'other side closed at 10.1.2.3', 'delivery_failed'],
  ['a reason as stored now', 'tls_failed', 'tls_failed'],
];
test('delivery history shows internal DNS answers (regression): detailed errors stored by earlier versions are shown as their coarse reason', async () => {
  const user = await testUser(sql, 'wh-legacy');
  assert.is((await call('PUT', '/apps/api/webhook', { cookie: user.cookie }, { url: 'https://hooks.example.com/legacy' })).status, 200);
  await insertPlugin(sql, 'wh-legacy-plugin', user, 'pending');
  assert.is((await call('POST', '/apps/api/plugins/wh-legacy-plugin/review', { cookie: admin.cookie }, { action: 'approve' })).status, 200);
  for (const [what, stored, shown] of storedErrors) {
    await sql`update webhook_deliveries set last_error = ${stored} where user_id = ${user.id}`;
    const answer = await call('GET', '/apps/api/webhook/deliveries', { cookie: user.cookie });
    assert.is(answer.body.deliveries[0].lastError, shown, what);
  }
});

test('delivery history paging: limit 1-50, offset >= 0', async () => {
  for (const query of ['?limit=0', '?limit=51', '?limit=x', '?offset=-1', '?limit=1e1', '?limit=2.5', '?limit=1&limit=2', '?offset=99999999999999999999', '?offset=1000001', '?offset=%00']) {
    assert.is((await call('GET', `/apps/api/webhook/deliveries${query}`, { cookie: admin.cookie })).status, 400, query);
  }
  assert.is((await call('GET', '/apps/api/webhook/deliveries?limit=50', { cookie: admin.cookie })).status, 200);
});

test('PUT refuses a body over its small bound (413), a non-JSON type (415) and broken JSON (400)', async () => {
  const put = (body: string, type = 'application/json') =>
    call('PUT', '/apps/api/webhook', { cookie: admin.cookie, headers: { 'content-type': type } }, undefined, body);
  const padded = await put(JSON.stringify({ url: 'https://hooks.example.com/in', pad: 'x'.repeat(20_000) }));
  assert.equal([padded.status, padded.body.code], [413, 'PAYLOAD_TOO_LARGE']);
  assert.equal([(await put('{"url":"https://hooks.example.com/"}', 'text/plain')).status], [415]);
  for (const text of ['{"url":', '', 'nul']) assert.equal((await put(text)).status, 400, text);
});

const routes: Array<[string, string, unknown]> = [
  ['GET', '/apps/api/webhook', undefined],
  ['PUT', '/apps/api/webhook', { url: 'https://hooks.example.com/' }],
  ['DELETE', '/apps/api/webhook', undefined],
  ['GET', '/apps/api/webhook/deliveries', undefined],
];
for (const [method, path, body] of routes) {
  test(`${method} ${path}: 401 without a session, 403 to an API token`, async () => {
    assert.is((await call(method, path, {}, body)).status, 401);
    const user = await testUser(sql, `wh-tok-${method.toLowerCase()}-${path.length}`);
    const made = await call('POST', '/apps/api/tokens', { cookie: user.cookie }, { name: 'ci', scopes: ['plugins:write', 'media:upload'] });
    assert.is(made.status, 201, JSON.stringify(made.body));
    const answer = await call(method, path, { token: made.body.secret }, body);
    assert.is(answer.status, 403);
    assert.is(answer.body.code, 'FORBIDDEN');
  });
}

test('a cross-site PUT or DELETE is refused (403) and changes nothing', async () => {
  const user = await testUser(sql, 'wh-csrf');
  const foreign = { cookie: user.cookie, headers: { origin: 'https://evil.example' } };
  assert.is((await call('PUT', '/apps/api/webhook', foreign, { url: 'https://evil.example/steal' })).status, 403);
  assert.equal((await call('GET', '/apps/api/webhook', { cookie: user.cookie })).body.webhook, null);
  await call('PUT', '/apps/api/webhook', { cookie: user.cookie }, { url: 'https://hooks.example.com/mine' });
  assert.is((await call('DELETE', '/apps/api/webhook', foreign)).status, 403);
  assert.is((await call('GET', '/apps/api/webhook', { cookie: user.cookie })).body.webhook.url, 'https://hooks.example.com/mine');
});

test.run();
