// A package check under way when its site stops: the outside download and the
// image host's inspection are stopped with it (the job loop's signal, through
// fetch-package.ts), so closing the site does not wait out the check's 60 s time
// limit, and the check goes back in the queue, not recorded as a failure of the
// link, for another process to do.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { createPool } from '../../../../src/db/pool.js';
import { CHECK_TIME_LIMIT_MS } from '../../../../src/services/site/store/package-checks/feature.js';
import { closeTestSql, startTestImghost, startTestSite, testSql, type TestServer } from '../../../helpers/servers.js';
import { startConnectProxy, type ConnectProxy } from '../../../helpers/connect-proxy.js';
import { startFileServer, type FileServer } from '../../../helpers/https-files.js';
import { testCaPath } from '../../../helpers/tls-fixtures.js';
import { waitFor } from '../../../helpers/time.js';
import { buildZip } from '../../../helpers/zip-writer.js';
import { testUser } from '../../../helpers/store-fixtures.js';
import { newPlugin, storeClient } from '../store-client.js';

/** "Within a couple of seconds": the server's own close waits up to 1 s for requests under way. */
const CLOSED_WITHIN_MS = 3_000;

let files: FileServer;
let proxy: ConnectProxy;
let imghost: TestServer;
const otherSql = createPool(process.env.TEST_DB_URL!);

const siteSettings = () => ({
  HTTPS_PROXY: proxy.url,
  NODE_EXTRA_CA_CERTS: testCaPath(),
  WEBHOOK_ALLOWED_PORTS: String(files.port),
  IMAGE_HOST_URL: imghost.url,
});
/** A site whose worker runs, with the production time limit of a check. */
const startChecking = (sql = testSql()) =>
  startTestSite(siteSettings(), sql, undefined, undefined, { timeoutMs: CHECK_TIME_LIMIT_MS, pollIntervalMs: 200, scheduleIntervalMs: 3_600_000 });

test.before(async () => {
  files = await startFileServer();
  proxy = await startConnectProxy();
  imghost = await startTestImghost();
});
test.after(async () => {
  await imghost.close();
  await files.close();
  await proxy.close();
  await otherSql.end({ timeout: 2 });
  await closeTestSql();
});

const checkRow = async (id: string) =>
  (await testSql()<Array<{ status: string; claim: string | null; due: boolean; reason: string | null }>>`
    select status, claim, due_at <= now() as due, reason from plugin_package_checks where plugin_id = ${id}`)[0];

test('a site stopped during a slow outside download closes within seconds; the check is back in the queue and another process does it', async () => {
  // Headers, then nothing: only the time limit or the stop ends this fetch.
  files.files.set('/slow.zip', { kind: 'stall' });
  const fetches = () => files.requests.filter((request) => request.path === '/slow.zip').length;
  const stopping = await startChecking();
  const author = await testUser(testSql(), 'stop-author');
  const created = await storeClient(stopping.url).post('/apps/api/plugins', newPlugin('stopped-check', { download: `${files.origin}/slow.zip` }), { cookie: author.cookie });
  assert.is(created.status, 201, JSON.stringify(created.body));
  await waitFor('the slow download to be under way', () => fetches() === 1, 15_000);

  const started = performance.now();
  await stopping.close();
  const ms = performance.now() - started;
  assert.ok(ms < CLOSED_WITHIN_MS, `the site took ${Math.round(ms)} ms to close`);

  const left = await checkRow('stopped-check');
  assert.equal(left, { status: 'pending', claim: null, due: true, reason: null }, 'back in the queue, due, no result recorded');
  // The inspection was stopped too: the image host keeps nothing of it.
  await waitFor('the image host to drop the interrupted inspection', () => readdirSync(join(imghost.config.packagesDir, '.tmp')).length === 0);

  // Another process, with the file now answering, does the check.
  const bytes = buildZip([
    { name: 'plugin.json', data: Buffer.from(JSON.stringify({ id: 'stopped-check', name: 'stopped-check', version: '1.0.0', entry: 'main.py' })) },
    { name: 'main.py', data: Buffer.from('print("checked at last")\n') },
  ]);
  files.files.set('/slow.zip', { kind: 'bytes', body: bytes });
  const other = await startChecking(otherSql);
  try {
    await waitFor('the other process to check the link', async () => (await checkRow('stopped-check'))?.status !== 'pending', 30_000);
    const [done] = await testSql()<Array<{ status: string; sha256: string }>>`select status, sha256 from plugin_package_checks where plugin_id = 'stopped-check'`;
    assert.equal(done, { status: 'ok', sha256: createHash('sha256').update(bytes).digest('hex') });
    assert.is(fetches(), 2);
  } finally {
    await other.close();
  }
});

test.run();
