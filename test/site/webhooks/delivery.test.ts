// Webhook deliveries: to an HTTPS receiver with a valid signature, retried with
// backoff on a moved clock, given up after 24 hours, never through a redirect,
// never to a non-public address (by literal or by what a name resolves to), a
// crashed claimant's row retried after its lease, and several workers (on their
// own pools, like site processes) delivering each notification exactly once.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:net';
import { createLogger } from '../../../src/lib/log.js';
import { createPool, type Sql } from '../../../src/db/pool.js';
import { runNamed } from '../../../src/db/queries.js';
import { createDeliveryDispatcher, type Resolver } from '../../../src/services/site/webhooks/delivery-dispatcher.js';
import { createWebhookWorker, type WebhookWorker } from '../../../src/services/site/webhooks/delivery-worker.js';
import { closeTestSql, startTestSite, testLogger, testSql, type TestServer } from '../../helpers/servers.js';
import { insertPlugin, testUser, type TestUser } from '../../helpers/store-fixtures.js';
import { storeClient, type StoreClient } from '../store/store-client.js';
import { waitFor } from '../../helpers/time.js';
import { startReceiver, type Receiver } from './receiver.js';

let sql: Sql;
let site: TestServer;
let client: StoreClient;
let receiver: Receiver;
let admin: TestUser;
const extraPools: Sql[] = [];

/** The tests' clock: real time plus however far a test moved it. */
let offsetMs = 0;
const clock = () => Date.now() + offsetMs;

/** Where the tests' names point; every question is recorded. */
const dnsTable: Record<string, string[]> = {
  'receiver.test': ['127.0.0.1'],
  'loop.test': ['127.0.0.1'],
  'ten.test': ['10.0.0.1'],
  'meta.test': ['169.254.169.254'],
  'six.test': ['::1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'mixed.test': ['127.0.0.1', '10.0.0.1'],
};
const asked: string[] = [];
const resolver: Resolver = async (hostname) => {
  asked.push(hostname);
  const found = dnsTable[hostname];
  if (!found) throw Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' });
  return found;
};

/**
 * The test wiring: the receiver is on 127.0.0.1, which the real policy refuses, so
 * this dispatcher's policy lets through exactly that one address. Production has
 * no such setting; the real policy is tested separately (address-policy.test.ts)
 * and by `realPolicyWorker` below.
 */
const receiverOnly = (address: string) => address === '127.0.0.1';
let worker: WebhookWorker;
let realPolicyWorker: WebhookWorker;

/** A port where nothing listens (connect_failed), allowed like the receiver's. */
let closedPort: number;
/** The ports the test dispatchers allow: the receiver's and closedPort, as WEBHOOK_ALLOWED_PORTS does for the site. */
let testPorts: number[];

test.before(async () => {
  sql = testSql();
  receiver = await startReceiver();
  closedPort = await deadPort();
  testPorts = [443, 8443, receiver.port, closedPort];
  site = await startTestSite({ WEBHOOK_ALLOWED_PORTS: `${receiver.port},${closedPort}` }, sql, { start: false });
  client = storeClient(site.url);
  admin = await testUser(sql, 'whd-admin', { admin: true });
  worker = createWebhookWorker({ sql, log: testLogger() }, { clock, dispatcher: createDeliveryDispatcher({ resolve: resolver, ca: receiver.ca, addressAllowed: receiverOnly, ports: testPorts }) });
  realPolicyWorker = createWebhookWorker({ sql, log: testLogger() }, { clock, dispatcher: createDeliveryDispatcher({ resolve: resolver, ca: receiver.ca, ports: testPorts }) });
});
test.after(async () => {
  await worker.stop();
  await realPolicyWorker.stop();
  await site.close();
  await receiver.close();
  for (const pool of extraPools) await pool.end({ timeout: 2 });
  await closeTestSql();
});

test.before.each(async () => {
  // Each test counts its own deliveries: earlier tests' retries are ended first.
  await sql`update webhook_deliveries set status = 'failed', last_error = 'ended by the test' where status = 'pending'`;
  offsetMs = 0;
  receiver.requests = [];
  receiver.answers = [];
  receiver.fallback = { status: 200 };
  asked.length = 0;
});

const receiverUrl = (host = 'receiver.test', path = '/hook') => `https://${host}:${receiver.port}${path}`;

/** A user with a webhook at `url`; answers the user and the secret. */
async function subscriber(name: string, url = receiverUrl()): Promise<{ user: TestUser; secret: string }> {
  const user = await testUser(sql, name);
  const answer = await client.request('PUT', '/apps/api/webhook', { cookie: user.cookie, body: { url } });
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  return { user, secret: answer.body.webhook.secret };
}

/** One notification for `user` (an administrator approves a plugin of theirs). */
let plugins = 0;
async function notifyUser(user: TestUser): Promise<void> {
  const id = `whd-plugin-${++plugins}`;
  await insertPlugin(sql, id, user, 'pending');
  const answer = await client.post(`/apps/api/plugins/${id}/review`, { action: 'approve' }, { cookie: admin.cookie });
  assert.is(answer.status, 200);
}

const history = async (user: TestUser) => (await client.get('/apps/api/webhook/deliveries?limit=50', { cookie: user.cookie })).body;

test('a notification is POSTed with the notification as JSON, signed with the user\'s secret; delivered once', async () => {
  const { user, secret } = await subscriber('whd-sign');
  await notifyUser(user);
  assert.is(await worker.runOnce(), 1);
  assert.is(receiver.requests.length, 1);
  const [got] = receiver.requests;
  assert.equal([got!.method, got!.path], ['POST', '/hook']);
  assert.is(got!.headers['content-type'], 'application/json');
  assert.match(String(got!.headers['user-agent']), /^launcher-web-webhooks\//);

  // The receiver's check, as docs/api.md shows it.
  const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(got!.body).digest('hex'));
  const sent = Buffer.from(String(got!.headers['x-signature-256']));
  assert.ok(sent.length === expected.length && timingSafeEqual(sent, expected), 'valid signature');
  const forged = Buffer.from('sha256=' + createHmac('sha256', 'whsec_wrong').update(got!.body).digest('hex'));
  assert.not.ok(timingSafeEqual(sent, forged));

  const [notification] = (await client.get('/apps/api/notifications', { cookie: user.cookie })).body.notifications;
  const { read: _read, ...shown } = notification;
  assert.equal(JSON.parse(got!.body.toString('utf8')), shown);
  assert.is(got!.headers['x-webhook-event'], 'review.approved');

  const { deliveries } = await history(user);
  assert.is(deliveries.length, 1);
  assert.is(String(got!.headers['x-webhook-delivery']), String(deliveries[0].id));
  assert.equal([deliveries[0].status, deliveries[0].attempts, deliveries[0].lastStatusCode, deliveries[0].lastError, deliveries[0].nextAttemptAt], ['delivered', 1, 200, null, null]);
  assert.ok(deliveries[0].deliveredAt);

  // Nothing is due any more, now or a day later.
  assert.is(await worker.runOnce(), 0);
  offsetMs += 48 * 3600_000;
  assert.is(await worker.runOnce(), 0);
  offsetMs = 0;
  assert.is(receiver.requests.length, 1);
});

/** The receiver's check with replay protection, as docs/api.md shows it (5 minutes' tolerance). */
const TOLERANCE_SECONDS = 5 * 60;
function verifyWebhook(rawBody: Buffer, headers: Record<string, unknown>, secret: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const timestamp = String(headers['x-webhook-timestamp'] ?? '');
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const expected = Buffer.from('v1=' + createHmac('sha256', secret).update(timestamp + '.').update(rawBody).digest('hex'));
  const sent = Buffer.from(String(headers['x-webhook-signature'] ?? ''));
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

test('a captured delivery can be replayed (regression): the attempt signs its time with the body; a copy replayed after 5 minutes, or with another time, fails the check', async () => {
  const { user, secret } = await subscriber('whd-replay');
  await notifyUser(user);
  assert.is(await worker.runOnce(), 1);
  const [got] = receiver.requests;
  const now = Math.floor(clock() / 1000);
  const timestamp = Number(got!.headers['x-webhook-timestamp']);
  assert.match(String(got!.headers['x-webhook-timestamp']), /^\d{10}$/);
  assert.ok(Math.abs(timestamp - now) <= 2, `timestamp ${timestamp}, now ${now}`);
  assert.match(String(got!.headers['x-webhook-signature']), /^v1=[0-9a-f]{64}$/);

  const table: Array<{ what: string; headers: Record<string, unknown>; body: Buffer; at: number; valid: boolean }> = [
    { what: 'as received', headers: got!.headers, body: got!.body, at: now, valid: true },
    { what: 'replayed 4 minutes later', headers: got!.headers, body: got!.body, at: now + 240, valid: true },
    { what: 'replayed 6 minutes later', headers: got!.headers, body: got!.body, at: now + 360, valid: false },
    { what: 'replayed a day later', headers: got!.headers, body: got!.body, at: now + 86_400, valid: false },
    { what: 'replayed later with a fresh timestamp', headers: { ...got!.headers, 'x-webhook-timestamp': String(now + 3600) }, body: got!.body, at: now + 3600, valid: false },
    { what: 'another body', headers: got!.headers, body: Buffer.from(got!.body.toString().replace('"id":', '"id":1')), at: now, valid: false },
    { what: 'no timestamp', headers: { ...got!.headers, 'x-webhook-timestamp': undefined }, body: got!.body, at: now, valid: false },
    { what: 'another secret', headers: got!.headers, body: got!.body, at: now, valid: false },
  ];
  for (const c of table) {
    assert.is(verifyWebhook(c.body, c.headers, c.what === 'another secret' ? 'whsec_other' : secret, c.at), c.valid, c.what);
  }
  // X-Signature-256 is unchanged: the HMAC of the body alone.
  assert.is(got!.headers['x-signature-256'], 'sha256=' + createHmac('sha256', secret).update(got!.body).digest('hex'));
});

test('each attempt signs its own time: a retry an hour later carries a fresh timestamp that verifies then', async () => {
  const { user, secret } = await subscriber('whd-retry-time');
  receiver.answers = [{ status: 500 }];
  await notifyUser(user);
  assert.is(await worker.runOnce(), 1);
  offsetMs += 3600_000;
  assert.is(await worker.runOnce(), 1);
  const [first, second] = receiver.requests;
  assert.is(Number(second!.headers['x-webhook-timestamp']) - Number(first!.headers['x-webhook-timestamp']) >= 3599, true);
  assert.ok(verifyWebhook(second!.body, second!.headers, secret, Math.floor(clock() / 1000)));
  assert.not.ok(verifyWebhook(first!.body, first!.headers, secret, Math.floor(clock() / 1000)));
  assert.is(first!.headers['x-signature-256'], second!.headers['x-signature-256']);
  offsetMs = 0;
});

test('the receiver fails twice, then succeeds: retried after 30 s and 1 min, delivered on the third attempt', async () => {
  const { user } = await subscriber('whd-retry');
  receiver.answers = [{ status: 500 }, { status: 503 }];
  await notifyUser(user);
  assert.is(await worker.runOnce(), 1);
  let [delivery] = (await history(user)).deliveries;
  assert.equal([delivery.status, delivery.attempts, delivery.lastStatusCode], ['pending', 1, 500]);
  assert.is(delivery.lastError, 'http_status');
  const firstRetry = Date.parse(delivery.nextAttemptAt) - clock();
  assert.ok(firstRetry > 25_000 && firstRetry <= 30_000, `first retry in ${firstRetry} ms`);

  // Not due yet: nothing is sent.
  assert.is(await worker.runOnce(), 0);
  offsetMs += 31_000;
  assert.is(await worker.runOnce(), 1);
  [delivery] = (await history(user)).deliveries;
  assert.equal([delivery.status, delivery.attempts, delivery.lastStatusCode], ['pending', 2, 503]);
  const secondRetry = Date.parse(delivery.nextAttemptAt) - clock();
  assert.ok(secondRetry > 55_000 && secondRetry <= 60_000, `second retry in ${secondRetry} ms`);
  offsetMs += 31_000;
  assert.is(await worker.runOnce(), 0);
  offsetMs += 30_000;
  assert.is(await worker.runOnce(), 1);
  [delivery] = (await history(user)).deliveries;
  assert.equal([delivery.status, delivery.attempts, delivery.lastStatusCode, delivery.lastError], ['delivered', 3, 200, null]);
  assert.is(receiver.requests.length, 3);
  // The same delivery each time: same id, same body.
  assert.is(new Set(receiver.requests.map((r) => r.headers['x-webhook-delivery'])).size, 1);
  assert.is(new Set(receiver.requests.map((r) => r.body.toString())).size, 1);
  offsetMs = 0;
});

test('a receiver that keeps failing is retried with growing waits and given up 24 hours after the delivery was queued', async () => {
  const { user } = await subscriber('whd-giveup');
  receiver.fallback = { status: 500 };
  await notifyUser(user);
  const waits: number[] = [];
  for (let round = 0; round < 100; round++) {
    assert.is(await worker.runOnce(), 1);
    const [delivery] = (await history(user)).deliveries;
    if (delivery.status === 'failed') break;
    const wait = Date.parse(delivery.nextAttemptAt) - clock();
    waits.push(wait);
    offsetMs += wait + 1000;
  }
  const [delivery] = (await history(user)).deliveries;
  assert.is(delivery.status, 'failed');
  assert.is(delivery.nextAttemptAt, null);
  assert.ok(offsetMs >= 23 * 3600_000 && offsetMs <= 25 * 3600_000, `gave up after ${offsetMs / 3600_000} h`);
  assert.is(receiver.requests.length, delivery.attempts);
  // 30 s, 1 min, 2 min, ... doubling, then at most an hour apart.
  assert.ok(waits.slice(0, 5).every((wait, i) => Math.abs(wait - 30_000 * 2 ** i) < 5000), JSON.stringify(waits.slice(0, 5)));
  assert.ok(waits.every((wait) => wait <= 3600_000));
  offsetMs += 3 * 3600_000;
  assert.is(await worker.runOnce(), 0);
  offsetMs = 0;
});

test('a redirect is not followed: it counts as a failure', async () => {
  const { user } = await subscriber('whd-redirect');
  receiver.answers = [{ status: 302, headers: { location: receiverUrl('receiver.test', '/elsewhere') } }];
  await notifyUser(user);
  assert.is(await worker.runOnce(), 1);
  assert.equal(receiver.requests.map((r) => r.path), ['/hook']);
  const [delivery] = (await history(user)).deliveries;
  assert.equal([delivery.status, delivery.lastStatusCode], ['pending', 302]);
  assert.is(delivery.lastError, 'redirect');
});

const refusedNames = ['loop.test', 'ten.test', 'meta.test', 'six.test', 'mapped.test', 'mixed.test'];
for (const host of refusedNames) {
  test(`a name that resolves to ${dnsTable[host]!.join(' and ')} (${host}) is never contacted`, async () => {
    const { user } = await subscriber(`whd-ssrf-${host.split('.')[0]}`, receiverUrl(host));
    await notifyUser(user);
    assert.is(await realPolicyWorker.runOnce(), 1);
    assert.is(receiver.requests.length, 0);
    assert.ok(asked.includes(host), 'the name was resolved (by the injected resolver)');
    const [delivery] = (await history(user)).deliveries;
    assert.equal([delivery.status, delivery.lastStatusCode], ['pending', null]);
    assert.is(delivery.lastError, 'address_not_allowed');
  });
}

test('delivery history shows internal DNS answers (regression): lastError is "address_not_allowed"; the name, its address and the error are in the server log only', async () => {
  const lines: string[] = [];
  const logged = createWebhookWorker({ sql, log: createLogger({}, { write: (line) => lines.push(line) }) }, { clock, dispatcher: createDeliveryDispatcher({ resolve: resolver, ca: receiver.ca, ports: testPorts }) });
  try {
    const { user } = await subscriber('whd-dns-leak', receiverUrl('loop.test'));
    await notifyUser(user);
    assert.is(await logged.runOnce(), 1);
    assert.is(receiver.requests.length, 0);
    const shown = await history(user);
    assert.not.match(JSON.stringify(shown), /127\.0\.0\.1|loop\.test|public|WEBHOOK_|resolves/);
    const [delivery] = shown.deliveries;
    assert.equal([delivery.status, delivery.lastStatusCode, delivery.lastError], ['pending', null, 'address_not_allowed']);
    const line = lines.map((text) => JSON.parse(text)).find((entry) => entry.delivery === String(delivery.id));
    assert.ok(line, `the attempt is logged: ${lines.join('')}`);
    assert.is(line.reason, 'address_not_allowed');
    assert.match(line.detail, /loop\.test resolves to 127\.0\.0\.1/);
  } finally {
    await logged.stop();
  }
});

/** A port on 127.0.0.1 where nothing listens (it was free a moment ago). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('each kind of failed attempt is recorded as its coarse reason, with the status code in lastStatusCode', async () => {
  const cases: Array<{ what: string; url: string; reason: string; status: number | null; answer?: { status: number; delayMs?: number }; dispatcher?: Parameters<typeof createDeliveryDispatcher>[0] }> = [
    { what: 'a non-public address', url: receiverUrl('ten.test'), reason: 'address_not_allowed', status: null, dispatcher: { resolve: resolver, ca: receiver.ca, ports: testPorts } },
    { what: 'a name that does not resolve', url: receiverUrl('nowhere.test'), reason: 'dns_failed', status: null },
    { what: 'nothing listening', url: `https://receiver.test:${closedPort}/hook`, reason: 'connect_failed', status: null },
    { what: 'an untrusted certificate', url: receiverUrl(), reason: 'tls_failed', status: null, dispatcher: { resolve: resolver, addressAllowed: receiverOnly, ports: testPorts } },
    { what: 'no answer in time', url: receiverUrl(), reason: 'timeout', status: null, answer: { status: 200, delayMs: 1500 }, dispatcher: { resolve: resolver, ca: receiver.ca, addressAllowed: receiverOnly, headersTimeoutMs: 200, ports: testPorts } },
    { what: 'a 500', url: receiverUrl(), reason: 'http_status', status: 500, answer: { status: 500 } },
    { what: 'a 404', url: receiverUrl(), reason: 'http_status', status: 404, answer: { status: 404 } },
    { what: 'a 301', url: receiverUrl(), reason: 'redirect', status: 301, answer: { status: 301 } },
  ];
  for (const [i, c] of cases.entries()) {
    receiver.answers = c.answer ? [c.answer] : [];
    const { user } = await subscriber(`whd-reason-${i}`, c.url);
    const own = createWebhookWorker({ sql, log: testLogger() }, { clock, dispatcher: createDeliveryDispatcher(c.dispatcher ?? { resolve: resolver, ca: receiver.ca, addressAllowed: receiverOnly, ports: testPorts }) });
    try {
      await notifyUser(user);
      assert.is(await own.runOnce(), 1, c.what);
    } finally {
      await own.stop();
    }
    const [delivery] = (await history(user)).deliveries;
    assert.equal([delivery.status, delivery.lastError, delivery.lastStatusCode], ['pending', c.reason, c.status], c.what);
  }
});

test('an address in a stored URL is checked again at delivery (127.0.0.1, 10.0.0.1, 169.254.169.254, ::1): never contacted', async () => {
  for (const [i, host] of ['127.0.0.1', '10.0.0.1', '169.254.169.254', '[::1]'].entries()) {
    const { user } = await subscriber(`whd-literal-${i}`);
    // As if set before the rule existed: the API would refuse it.
    await sql`update webhooks set url = ${`https://${host}:${receiver.port}/hook`} where user_id = ${user.id}`;
    await notifyUser(user);
    assert.is(await realPolicyWorker.runOnce(), 1);
    const [delivery] = (await history(user)).deliveries;
    assert.is(delivery.lastError, 'address_not_allowed', host);
  }
  assert.is(receiver.requests.length, 0);
  assert.equal(asked, [], 'an address is not resolved');
});

test('any port on a public host is accepted (regression): a stored URL whose port is not allowed is never contacted at delivery; "port_not_allowed"', async () => {
  const { user } = await subscriber('whd-port');
  // As if set before the rule existed, or WEBHOOK_ALLOWED_PORTS no longer lists it: this dispatcher allows 443 and 8443 only.
  const defaultPorts = createWebhookWorker({ sql, log: testLogger() }, { clock, dispatcher: createDeliveryDispatcher({ resolve: resolver, ca: receiver.ca, addressAllowed: receiverOnly }) });
  try {
    await notifyUser(user);
    assert.is(await defaultPorts.runOnce(), 1);
  } finally {
    await defaultPorts.stop();
  }
  assert.is(receiver.requests.length, 0);
  assert.equal(asked, [], 'refused before resolving the name');
  const [delivery] = (await history(user)).deliveries;
  assert.equal([delivery.status, delivery.lastStatusCode, delivery.lastError], ['pending', null, 'port_not_allowed']);
});

test('the connection goes to the address the check saw: one resolution per delivery, to 127.0.0.1', async () => {
  const { user } = await subscriber('whd-pin', receiverUrl('rebind.test'));
  // First answer allowed, any later one not: a second resolution would fail the delivery.
  let calls = 0;
  dnsTable['rebind.test'] = ['127.0.0.1'];
  const rebinding: Resolver = async (hostname) => (hostname === 'rebind.test' && calls++ > 0 ? ['10.0.0.1'] : resolver(hostname));
  const pinned = createWebhookWorker({ sql, log: testLogger() }, { clock, dispatcher: createDeliveryDispatcher({ resolve: rebinding, ca: receiver.ca, addressAllowed: receiverOnly, ports: testPorts }) });
  try {
    await notifyUser(user);
    assert.is(await pinned.runOnce(), 1);
    assert.is(calls, 1);
    assert.is(receiver.requests.length, 1);
    assert.is(receiver.requests[0]!.remoteAddress, '127.0.0.1');
    assert.is((await history(user)).deliveries[0].status, 'delivered');
  } finally {
    await pinned.stop();
  }
});

test('a claimant that died mid-attempt: its row is retried once the lease is over; its late outcome is ignored', async () => {
  const { user } = await subscriber('whd-lease');
  await notifyUser(user);
  const dead = '00000000-0000-4000-8000-000000000001';
  const [row] = await sql<Array<{ id: string }>>`
    update webhook_deliveries set locked_until = ${new Date(clock() + 60_000)}, claim = ${dead}, attempts = 1
     where user_id = ${user.id} returning id::text as id`;
  assert.is(await worker.runOnce(), 0);
  offsetMs += 61_000;
  assert.is(await worker.runOnce(), 1);
  assert.is(receiver.requests.length, 1);
  const [delivery] = (await history(user)).deliveries;
  assert.equal([delivery.status, delivery.attempts], ['delivered', 2]);
  assert.is((await runNamed(sql, 'webhooks/mark-failed', { delivery_id: row!.id, claim: dead, next_at: new Date(), status: 500, reason: 'late' })).length, 0);
  assert.is((await runNamed(sql, 'webhooks/mark-delivered', { delivery_id: row!.id, claim: dead, delivered_at: new Date(), status: 200 })).length, 0);
  assert.is((await history(user)).deliveries[0].status, 'delivered');
  offsetMs = 0;
});

test('stopping a worker aborts an attempt under way: a failed attempt, retried later, and stop does not wait for the receiver', async () => {
  const { user } = await subscriber('whd-stop');
  receiver.fallback = { status: 200, delayMs: 3000 };
  const stopping = createWebhookWorker({ sql, log: testLogger() }, { clock, dispatcher: createDeliveryDispatcher({ resolve: resolver, ca: receiver.ca, addressAllowed: receiverOnly, ports: testPorts }) });
  await notifyUser(user);
  const running = stopping.runOnce();
  await waitFor('the attempt reached the receiver', () => receiver.requests.length > 0);
  assert.is(receiver.requests.length, 1);
  const stoppedAt = Date.now();
  await stopping.stop();
  assert.is(await running, 1);
  assert.ok(Date.now() - stoppedAt < 1500, `stop took ${Date.now() - stoppedAt} ms`);
  const [delivery] = (await history(user)).deliveries;
  assert.equal([delivery.status, delivery.attempts, delivery.lastStatusCode], ['pending', 1, null]);
  assert.is(delivery.lastError, 'interrupted');
});

test('two workers on their own pools (as two site processes) deliver each of 24 notifications exactly once', async () => {
  const subscribers = await Promise.all([0, 1, 2].map((i) => subscriber(`whd-pair-${i}`)));
  receiver.fallback = { status: 200, delayMs: 15 };
  for (let i = 0; i < 8; i++) for (const { user } of subscribers) await notifyUser(user);
  const workers = [0, 1].map(() => {
    const pool = createPool(process.env.TEST_DB_URL!);
    extraPools.push(pool);
    return createWebhookWorker({ sql: pool, log: testLogger() }, { clock, dispatcher: createDeliveryDispatcher({ resolve: resolver, ca: receiver.ca, addressAllowed: receiverOnly, ports: testPorts }) });
  });
  const claimed = [0, 0];
  try {
    for (let round = 0; round < 20; round++) {
      const counts = await Promise.all(workers.map((w) => w.runOnce()));
      counts.forEach((count, i) => (claimed[i]! += count));
      if (counts.every((count) => count === 0)) break;
    }
  } finally {
    for (const w of workers) await w.stop();
  }
  assert.is(claimed[0]! + claimed[1]!, 24);
  assert.ok(claimed[0]! > 0 && claimed[1]! > 0, `both workers took some: ${claimed}`);
  const ids = receiver.requests.map((r) => String(r.headers['x-webhook-delivery']));
  assert.is(ids.length, 24);
  assert.is(new Set(ids).size, 24);
  for (const { user } of subscribers) {
    const { deliveries } = await history(user);
    assert.equal(deliveries.map((d: any) => [d.status, d.attempts]), Array.from({ length: 8 }, () => ['delivered', 1]));
  }
});

test('two running sites (own pools, real timers): woken on commit, each of 12 notifications delivered exactly once; stop is clean', async () => {
  const sites = await Promise.all(
    [0, 1].map(() => {
      const pool = createPool(process.env.TEST_DB_URL!);
      extraPools.push(pool);
      return startTestSite({}, pool, { dispatcher: createDeliveryDispatcher({ resolve: resolver, ca: receiver.ca, addressAllowed: receiverOnly, ports: testPorts }), pollIntervalMs: 60_000 });
    }),
  );
  const { user } = await subscriber('whd-live');
  try {
    for (let i = 0; i < 12; i++) await notifyUser(user);
    // Polls are a minute apart here: only the NOTIFY on commit can deliver this fast.
    const delivered = async () => (await history(user)).deliveries.filter((d: any) => d.status === 'delivered').length;
    await waitFor('12 deliveries recorded', async () => (await delivered()) === 12, 20_000);
  } finally {
    for (const running of sites) await running.close();
  }
  // Both workers have stopped and their attempts ended: a second attempt of any
  // delivery would be among the receiver's requests by now.
  const ids = receiver.requests.map((r) => String(r.headers['x-webhook-delivery']));
  assert.is(ids.length, 12);
  assert.is(new Set(ids).size, 12);
  const { deliveries } = await history(user);
  assert.equal(deliveries.map((d: any) => [d.status, d.attempts]), Array.from({ length: 12 }, () => ['delivered', 1]));
});

test.run();
