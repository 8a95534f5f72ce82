// Requests to the internet behind a proxy (HTTPS_PROXY, NO_PROXY) trusting the
// roots of NODE_EXTRA_CA_CERTS: a webhook delivered by a running site through the
// test proxy, a NO_PROXY host reached directly through the address-checking
// connector, literal private addresses and localhost names refused before the
// proxy is asked, the identity provider reached through the proxy, and how the
// variables are read.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadSiteSettings } from '../../../src/services/site/settings.js';
import { createProviderClient, DEFAULT_PROVIDER_LIMITS } from '../../../src/services/site/auth/provider-client.js';
import { createDeliveryDispatcher, type Resolver } from '../../../src/services/site/webhooks/delivery-dispatcher.js';
import { attemptDelivery } from '../../../src/services/site/webhooks/attempt.js';
import { ConfigError } from '../../../src/settings/env.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { insertPlugin, testUser } from '../../helpers/store-fixtures.js';
import { startConnectProxy, type ConnectProxy } from '../../helpers/connect-proxy.js';
import { startFileServer, type FileServer } from '../../helpers/https-files.js';
import { testCa, testCaPath } from '../../helpers/tls-fixtures.js';
import { storeClient } from '../store/store-client.js';

let files: FileServer;
let proxy: ConnectProxy;
let site: TestServer;

test.before(async () => {
  files = await startFileServer('receiver.test');
  proxy = await startConnectProxy();
  files.files.set('/hook', { kind: 'bytes', body: Buffer.from('ok'), contentType: 'text/plain' });
  site = await startTestSite({ HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: testCaPath(), WEBHOOK_ALLOWED_PORTS: String(files.port) });
});
test.after(async () => {
  await site.close();
  await files.close();
  await proxy.close();
  await closeTestSql();
});
test.before.each(() => {
  proxy.connects.length = 0;
  files.requests.length = 0;
});

const outbound = (extra: Record<string, string> = {}) => loadSiteSettings({ HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: testCaPath(), ...extra }).outbound;
const payload = { id: 1, kind: 'review.approved', plugin: null, actor: null, message: 'm', createdAt: new Date().toISOString() };
const attempt = (url: string) => ({ deliveryId: '1', sentAt: Date.now(), url, secret: 'whsec_x', payload });

async function waitFor(what: string, done: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('a running site delivers a webhook through HTTPS_PROXY, trusting NODE_EXTRA_CA_CERTS: the proxy saw the CONNECT', async () => {
  const sql = testSql();
  const client = storeClient(site.url);
  const author = await testUser(sql, 'proxy-author');
  const admin = await testUser(sql, 'proxy-admin', { admin: true });
  const put = await client.request('PUT', '/apps/api/webhook', { cookie: author.cookie, body: { url: `${files.origin}/hook` } });
  assert.is(put.status, 200, JSON.stringify(put.body));
  await insertPlugin(sql, 'proxied-plugin', author, 'pending');
  assert.is((await client.post('/apps/api/plugins/proxied-plugin/review', { action: 'approve' }, { cookie: admin.cookie })).status, 200);

  await waitFor('the delivery', () => files.requests.some((request) => request.method === 'POST'));
  assert.equal(proxy.connects.map((entry) => entry.target), [`receiver.test:${files.port}`]);
  const [post] = files.requests;
  assert.equal([post!.method, post!.path, post!.headers['x-webhook-event']], ['POST', '/hook', 'review.approved']);
  const status = async () => (await client.get('/apps/api/webhook/deliveries', { cookie: author.cookie })).body.deliveries[0]?.status;
  await waitFor('the delivery recorded', async () => (await status()) === 'delivered');
});

test('NO_PROXY: a host it names is reached directly, through the connector that resolves and checks its address; the proxy is not asked', async () => {
  const asked: string[] = [];
  const resolve: Resolver = async (hostname) => (asked.push(hostname), ['127.0.0.1']);
  for (const noProxy of ['receiver.test', '.test', `receiver.test:${files.port}`, '*']) {
    asked.length = 0;
    const dispatcher = createDeliveryDispatcher({ outbound: outbound({ NO_PROXY: noProxy }), resolve, addressAllowed: (address) => address === '127.0.0.1', ports: [files.port] });
    try {
      const result = await attemptDelivery(dispatcher, attempt(`${files.origin}/hook`));
      assert.equal(result, { ok: true, statusCode: 200 }, noProxy);
      assert.equal(asked, ['receiver.test'], noProxy);
      assert.equal(proxy.connects, [], noProxy);
    } finally {
      await dispatcher.close();
    }
  }
  // And a NO_PROXY naming another host leaves this one proxied.
  const dispatcher = createDeliveryDispatcher({ outbound: outbound({ NO_PROXY: 'other.test,example.org' }), resolve, ports: [files.port] });
  try {
    assert.equal(await attemptDelivery(dispatcher, attempt(`${files.origin}/hook`)), { ok: true, statusCode: 200 });
    assert.is(proxy.connects.length, 1);
  } finally {
    await dispatcher.close();
  }
});

test('behind a proxy, literal private addresses and localhost names are refused before the proxy is asked', async () => {
  const dispatcher = createDeliveryDispatcher({ outbound: outbound(), ports: [443, files.port] });
  const cases = [
    { what: 'loopback', url: `https://127.0.0.1:${files.port}/hook`, reason: 'address_not_allowed' },
    { what: 'private', url: 'https://10.0.0.1/hook', reason: 'address_not_allowed' },
    { what: 'metadata', url: 'https://169.254.169.254/hook', reason: 'address_not_allowed' },
    { what: 'IPv6 loopback', url: `https://[::1]:${files.port}/hook`, reason: 'address_not_allowed' },
    { what: 'IPv4-mapped', url: 'https://[::ffff:10.0.0.1]/hook', reason: 'address_not_allowed' },
    { what: 'localhost', url: `https://localhost:${files.port}/hook`, reason: 'address_not_allowed' },
    { what: 'a .localhost name', url: 'https://app.localhost./hook', reason: 'address_not_allowed' },
    { what: 'a port not allowed', url: 'https://receiver.test:8080/hook', reason: 'port_not_allowed' },
  ];
  try {
    for (const { what, url, reason } of cases) {
      const result = await attemptDelivery(dispatcher, attempt(url));
      assert.is(result.ok ? 'ok' : result.reason, reason, what);
    }
    assert.equal(proxy.connects, []);
  } finally {
    await dispatcher.close();
  }
});

test('without NODE_EXTRA_CA_CERTS the test CA is not trusted: the proxied delivery fails its TLS handshake', async () => {
  const dispatcher = createDeliveryDispatcher({ outbound: loadSiteSettings({ HTTPS_PROXY: proxy.url }).outbound, ports: [files.port] });
  try {
    const result = await attemptDelivery(dispatcher, attempt(`${files.origin}/hook`));
    assert.is(result.ok ? 'ok' : result.reason, 'tls_failed');
    assert.is(proxy.connects.length, 1);
  } finally {
    await dispatcher.close();
  }
});

test('a proxy that will not open the tunnel is a connection failure', async () => {
  const dispatcher = createDeliveryDispatcher({ outbound: outbound(), ports: [files.port] });
  try {
    const result = await attemptDelivery(dispatcher, attempt(`https://unknown.test:${files.port}/hook`));
    assert.is(result.ok ? 'ok' : result.reason, 'connect_failed');
  } finally {
    await dispatcher.close();
  }
});

test('the identity provider is reached through the proxy, trusting NODE_EXTRA_CA_CERTS', async () => {
  const idp = await startFileServer('idp.test');
  idp.files.set('/userinfo', { kind: 'bytes', body: Buffer.from(JSON.stringify({ sub: '42' })), contentType: 'application/json' });
  const client = createProviderClient(DEFAULT_PROVIDER_LIMITS, outbound());
  try {
    const oauth = { authorizeUrl: '', tokenUrl: '', userinfoUrl: `${idp.origin}/userinfo`, clientId: 'c', clientSecret: '', scope: '' };
    assert.equal(await client.fetchUserinfo(oauth, 'token'), { sub: '42' });
    assert.equal(proxy.connects.map((entry) => entry.target), [`idp.test:${idp.port}`]);
    assert.is(idp.requests[0]?.headers.authorization, 'Bearer token');
  } finally {
    await client.close();
    await idp.close();
  }
});

test('the proxy variables are read as curl reads them; a bad value or CA file stops start-up naming the variable', () => {
  const read = (env: Record<string, string | undefined>) => {
    const { httpsProxy, httpProxy, noProxy, ca } = loadSiteSettings(env).outbound;
    return { httpsProxy, httpProxy, noProxy, ca: ca === undefined ? undefined : ca.at(-1) === testCa() };
  };
  const cases: Array<{ what: string; env: Record<string, string | undefined>; want: unknown }> = [
    { what: 'nothing set', env: {}, want: { httpsProxy: undefined, httpProxy: undefined, noProxy: '', ca: undefined } },
    { what: 'upper case', env: { HTTPS_PROXY: 'http://proxy.corp:3128', HTTP_PROXY: 'http://p2:8080', NO_PROXY: 'corp,.internal' }, want: { httpsProxy: 'http://proxy.corp:3128/', httpProxy: 'http://p2:8080/', noProxy: 'corp,.internal', ca: undefined } },
    { what: 'lower case first', env: { https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2', no_proxy: 'a', NO_PROXY: 'b' }, want: { httpsProxy: 'http://lower:1/', httpProxy: undefined, noProxy: 'a', ca: undefined } },
    { what: 'with credentials', env: { HTTPS_PROXY: 'http://user:pass@proxy:3128' }, want: { httpsProxy: 'http://user:pass@proxy:3128/', httpProxy: undefined, noProxy: '', ca: undefined } },
    { what: 'extra roots', env: { NODE_EXTRA_CA_CERTS: testCaPath() }, want: { httpsProxy: undefined, httpProxy: undefined, noProxy: '', ca: true } },
  ];
  for (const { what, env, want } of cases) assert.equal(read(env), want, what);
  const refused = [
    { what: 'not a URL', env: { HTTPS_PROXY: 'proxy corp' }, variable: 'HTTPS_PROXY' },
    { what: 'another scheme', env: { http_proxy: 'ftp://proxy:21' }, variable: 'http_proxy' },
    { what: 'a missing CA file', env: { NODE_EXTRA_CA_CERTS: '/nonexistent/ca.pem' }, variable: 'NODE_EXTRA_CA_CERTS' },
    { what: 'a CA file with no certificate', env: { NODE_EXTRA_CA_CERTS: '/etc/hostname' }, variable: 'NODE_EXTRA_CA_CERTS' },
  ];
  for (const { what, env, variable } of refused) {
    assert.throws(() => loadSiteSettings(env), (error: unknown) => error instanceof ConfigError && error.variable === variable, what);
  }
});

test.run();
