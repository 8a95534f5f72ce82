// GET /metrics on both services: off without METRICS_TOKEN, bearer-protected with
// it, Prometheus text that parses, and counters that move with the requests made.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadSettings } from '../../src/boot.js';
import { ConfigError } from '../../src/settings/env.js';
import { createHttpMetrics, DURATION_BUCKETS } from '../../src/http/metrics/http-metrics.js';
import { labelValue } from '../../src/http/metrics/exposition.js';
import { makePng } from '../fixtures/images/generate.js';
import { upload } from '../fixtures/images/client.js';
import { parsePrometheus, sampleValue, type PromSample } from '../helpers/prometheus.js';
import { closeTestSql, startTestImghost, startTestSite, type TestServer } from '../helpers/servers.js';

const TOKEN = 'metrics-test-token-0123456789';
let site: TestServer;
let imghost: TestServer;
let siteOff: TestServer;
let imghostOff: TestServer;

test.before(async () => {
  site = await startTestSite({ METRICS_TOKEN: TOKEN });
  imghost = await startTestImghost({ METRICS_TOKEN: TOKEN });
  siteOff = await startTestSite();
  imghostOff = await startTestImghost();
});
test.after(async () => {
  await Promise.all([site, imghost, siteOff, imghostOff].map((server) => server?.close()));
  await closeTestSql();
});

/**
 * A request is counted when its answer is done ('close' on the server), which may
 * come a moment after the client has read the last byte: wait for `moved`.
 */
async function scrapeUntil(server: TestServer, moved: (samples: PromSample[]) => boolean): Promise<PromSample[]> {
  let samples = await scrape(server);
  for (let tries = 0; tries < 50 && !moved(samples); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    samples = await scrape(server);
  }
  return samples;
}

const scrape = async (server: TestServer) => {
  const answer = await fetch(server.url + '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.is(answer.status, 200);
  return parsePrometheus(await answer.text()).samples;
};

const access = [
  { what: 'no token configured', server: () => siteOff, authorization: `Bearer ${TOKEN}`, status: 404 },
  { what: 'no token configured (image host)', server: () => imghostOff, authorization: `Bearer ${TOKEN}`, status: 404 },
  { what: 'no Authorization', server: () => site, authorization: undefined, status: 401 },
  { what: 'no Authorization (image host)', server: () => imghost, authorization: undefined, status: 401 },
  { what: 'wrong token', server: () => site, authorization: 'Bearer not-the-token', status: 401 },
  { what: 'token as a prefix', server: () => site, authorization: `Bearer ${TOKEN.slice(0, -1)}`, status: 401 },
  { what: 'another scheme', server: () => site, authorization: `Basic ${TOKEN}`, status: 401 },
  { what: 'right token', server: () => site, authorization: `Bearer ${TOKEN}`, status: 200 },
  { what: 'right token, scheme in lower case', server: () => imghost, authorization: `bearer ${TOKEN}`, status: 200 },
];
for (const row of access) {
  test(`/metrics access: ${row.what} -> ${row.status}`, async () => {
    const answer = await fetch(row.server().url + '/metrics', { headers: row.authorization ? { authorization: row.authorization } : {} });
    assert.is(answer.status, row.status);
    const body = await answer.text();
    if (row.status === 200) {
      assert.is(answer.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
      assert.is(answer.headers.get('cache-control'), 'no-store');
      parsePrometheus(body);
    } else {
      assert.is(JSON.parse(body).code, row.status === 404 ? 'NOT_FOUND' : 'UNAUTHORIZED');
    }
    if (row.status === 401) assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer/);
  });
}

test('site: requests are counted by route pattern and status, with durations', async () => {
  const labels = { method: 'GET', route: '/healthz', status: '200' };
  const before = await scrape(site);
  for (let i = 0; i < 5; i++) await (await fetch(site.url + '/healthz')).text();
  const after = await scrapeUntil(site, (samples) => sampleValue(samples, 'http_requests_total', labels) - sampleValue(before, 'http_requests_total', labels) >= 5);
  assert.is(sampleValue(after, 'http_requests_total', labels) - sampleValue(before, 'http_requests_total', labels), 5);
  const count = { method: 'GET', route: '/healthz' };
  assert.is(sampleValue(after, 'http_request_duration_seconds_count', count) - sampleValue(before, 'http_request_duration_seconds_count', count), 5);
  assert.is(sampleValue(after, 'http_request_duration_seconds_bucket', { ...count, le: '+Inf' }), sampleValue(after, 'http_request_duration_seconds_count', count));
  assert.ok(sampleValue(after, 'http_request_duration_seconds_sum', count) > 0);
});

test('site: a parameterised route counts under its pattern, never the raw path', async () => {
  await (await fetch(site.url + '/apps/api/plugins/metrics-no-such-plugin')).text();
  const samples = await scrapeUntil(site, (now) => sampleValue(now, 'http_requests_total', { route: '/apps/api/plugins/:id', status: '404' }) >= 1);
  assert.ok(sampleValue(samples, 'http_requests_total', { route: '/apps/api/plugins/:id', status: '404' }) >= 1);
  assert.not.ok(samples.some((s) => Object.values(s.labels).some((v) => v.includes('metrics-no-such-plugin'))), 'raw path in a label');
});

test('regression: paths no route takes share one "unmatched" series (the label set stays bounded)', async () => {
  const before = await scrape(site);
  for (const path of ['/metrics-a', '/metrics-b/c', '/%zz']) await (await fetch(site.url + path)).text();
  const unmatched = (samples: PromSample[]) =>
    samples.filter((s) => s.name === 'http_requests_total' && s.labels.route === 'unmatched').reduce((sum, s) => sum + s.value, 0);
  const after = await scrapeUntil(site, (now) => unmatched(now) - unmatched(before) >= 3);
  assert.is(unmatched(after) - unmatched(before), 3);
  assert.not.ok(after.some((s) => Object.values(s.labels).some((v) => v.startsWith('/metrics-'))));
  assert.is(new Set(after.filter((s) => s.name === 'http_requests_total').map((s) => s.labels.route)).has('unmatched'), true);
});

test('site: PostgreSQL pool use is reported', async () => {
  await (await fetch(site.url + '/apps/api/plugins')).text();
  // The site's own background work (the rate limiters' batched counts, the purges of
  // expired sessions and old install clicks) may have a query under way at any one
  // scrape (a full run caught one): nothing is LEFT counted once it is done, so the
  // gauges come back to 0.
  const idle = (now: PromSample[]) => sampleValue(now, 'site_db_queries_in_flight') === 0 && sampleValue(now, 'site_db_transactions_in_flight') === 0;
  const samples = await scrapeUntil(site, idle);
  assert.is(sampleValue(samples, 'site_db_pool_size'), 10);
  assert.is(sampleValue(samples, 'site_db_queries_in_flight'), 0);
  assert.is(sampleValue(samples, 'site_db_transactions_in_flight'), 0);
});

test('image host: decode queue depth and WebP conversions, which move with a first preview', async () => {
  const before = await scrape(imghost);
  assert.is(sampleValue(before, 'imghost_decode_queue_waiting'), 0);
  const answer = await upload(imghost.url, await makePng(4242), 'm.png');
  assert.is(answer.status, 200);
  const preview = await fetch(imghost.url + (answer.body.data as { webpUrl: string }).webpUrl);
  assert.is(preview.status, 200);
  await preview.arrayBuffer();
  const after = await scrapeUntil(imghost, (now) => sampleValue(now, 'http_requests_total', { route: '/img/:timestamp/:file', status: '200' }) >= 1);
  assert.is(sampleValue(after, 'imghost_webp_conversions_total') - sampleValue(before, 'imghost_webp_conversions_total'), 1);
  assert.is(sampleValue(after, 'http_requests_total', { method: 'POST', route: '/api/upload', status: '200' }) - sampleValue(before, 'http_requests_total', { method: 'POST', route: '/api/upload', status: '200' }), 1);
  assert.ok(sampleValue(after, 'http_requests_total', { route: '/img/:timestamp/:file', status: '200' }) >= 1);
});

test('RouteMeter: a duration lands in the first bucket whose bound is not below it', () => {
  const metrics = createHttpMetrics();
  const meter = metrics.meterFor('get', '/x');
  meter.observe(200, 0.5); // 0.0005 s
  meter.observe(200, 1); // exactly 1 ms: the 0.001 bucket (le is inclusive)
  meter.observe(503, 30_000); // 30 s: above every bound
  assert.is(meter.buckets[0], 2);
  assert.is(meter.buckets[DURATION_BUCKETS.length], 1);
  const { samples } = parsePrometheus(metrics.render());
  assert.is(sampleValue(samples, 'http_requests_total', { method: 'GET', route: '/x', status: '503' }), 1);
  assert.is(sampleValue(samples, 'http_request_duration_seconds_bucket', { route: '/x', le: '10' }), 2);
  assert.is(sampleValue(samples, 'http_request_duration_seconds_bucket', { route: '/x', le: '+Inf' }), 3);
});

test('label values are escaped as the format requires', () => {
  assert.is(labelValue('a"b\\c\nd'), 'a\\"b\\\\c\\nd');
});

const configRows = [
  { what: 'unset', value: undefined, ok: true },
  { what: 'a token', value: 'abc-DEF_123', ok: true },
  { what: 'a space inside', value: 'abc def', ok: false },
  { what: 'too long', value: 'x'.repeat(513), ok: false },
];
for (const row of configRows) {
  test(`METRICS_TOKEN config: ${row.what}`, () => {
    try {
      const config = loadSettings({ METRICS_TOKEN: row.value });
      assert.ok(row.ok, 'accepted');
      assert.is(config.metricsToken, row.value);
    } catch (error) {
      assert.ok(error instanceof ConfigError, String(error));
      assert.is((error as ConfigError).variable, 'METRICS_TOKEN');
      assert.not.ok(row.ok, 'refused');
    }
  });
}

test.run();
