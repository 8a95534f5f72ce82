// /metrics reports the webhook queue: pending deliveries (read from PostgreSQL at
// scrape time, so every process shows the shared queue) and this process's failed
// and successful attempts. The site's own worker runs here, woken on commit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../src/db/pool.js';
import { createDeliveryDispatcher } from '../../../src/services/site/webhooks/delivery-dispatcher.js';
import { parsePrometheus, sampleValue, type PromSample } from '../../helpers/prometheus.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { insertPlugin, testUser } from '../../helpers/store-fixtures.js';
import { storeClient } from '../store/store-client.js';
import { startReceiver, type Receiver } from './receiver.js';

const TOKEN = 'webhook-metrics-token';
let sql: Sql;
let site: TestServer;
let receiver: Receiver;

test.before(async () => {
  sql = testSql();
  receiver = await startReceiver();
  site = await startTestSite({ METRICS_TOKEN: TOKEN, WEBHOOK_ALLOWED_PORTS: String(receiver.port) }, sql, {
    dispatcher: createDeliveryDispatcher({ resolve: async () => ['127.0.0.1'], ca: receiver.ca, addressAllowed: (address) => address === '127.0.0.1', ports: [receiver.port] }),
    pollIntervalMs: 60_000,
  });
});
test.after(async () => {
  await site.close();
  await receiver.close();
  await closeTestSql();
});

async function scrape(): Promise<PromSample[]> {
  const answer = await fetch(site.url + '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.is(answer.status, 200);
  const { samples, types } = parsePrometheus(await answer.text());
  assert.is(types.get('webhook_queue_depth'), 'gauge');
  assert.is(types.get('webhook_delivery_failures_total'), 'counter');
  return samples;
}

async function until(check: () => Promise<boolean>): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > 10_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('queue depth and failures move with a failing receiver, and back when it answers', async () => {
  const before = await scrape();
  assert.is(sampleValue(before, 'webhook_queue_depth'), 0);
  assert.is(sampleValue(before, 'webhook_delivery_failures_total'), 0);

  receiver.fallback = { status: 500 };
  const admin = await testUser(sql, 'whm-admin', { admin: true });
  const user = await testUser(sql, 'whm-user');
  const client = storeClient(site.url);
  assert.is((await client.request('PUT', '/apps/api/webhook', { cookie: user.cookie, body: { url: 'https://receiver.test:' + receiver.port + '/m' } })).status, 200);
  for (const id of ['whm-one', 'whm-two']) {
    await insertPlugin(sql, id, user, 'pending');
    assert.is((await client.post(`/apps/api/plugins/${id}/review`, { action: 'approve' }, { cookie: admin.cookie })).status, 200);
  }
  await until(async () => receiver.requests.length >= 2);
  let samples: PromSample[] = [];
  await until(async () => sampleValue((samples = await scrape()), 'webhook_delivery_failures_total') === 2);
  assert.is(sampleValue(samples, 'webhook_queue_depth'), 2, 'both wait for their retry');

  // Due again (as after the backoff) with a receiver that answers: delivered, the queue empties.
  receiver.fallback = { status: 204 };
  await sql`update webhook_deliveries set next_attempt_at = now() - interval '1 second' where status = 'pending'`;
  await sql`select pg_notify('webhook_deliveries', '')`;
  await until(async () => sampleValue((samples = await scrape()), 'webhook_queue_depth') === 0);
  assert.is(sampleValue(samples, 'webhook_deliveries_total'), 2);
  assert.is(sampleValue(samples, 'webhook_delivery_failures_total'), 2);
});

test.run();
