// npm run recheck (src/recheck.ts, src/services/site/store/versions/manifest/recheck.ts): the
// checks of every pending and live version computed again from what was kept of
// its package, the changes printed per version, old -> new; nothing else touched.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../../src/db/pool.js';
import { describeChange, recheckAll } from '../../../../src/services/site/store/versions/manifest/recheck.js';
import { insertPlugin, type TestUser } from '../../../helpers/store-fixtures.js';
import { tempDir, type TestServer } from '../../../helpers/servers.js';
import { as, startStoreSite } from '../../../helpers/store-site.js';
import { newPlugin, type StoreClient } from '../store-client.js';
import { packageOf, uploadVersion } from './versions-client.js';

let imghost: TestServer, site: TestServer, client: StoreClient, sql: Sql;
let author: TestUser, other: TestUser, admin: TestUser, closeStore: () => Promise<void>;

test.before(async () => {
  ({ imghost, site, client, sql, author, other, admin, close: closeStore } = await startStoreSite('rck', { imageHost: true }));
});
test.after(() => closeStore());

const codesOf = async (id: string, version: string) =>
  ((await sql<Array<{ checks: Array<{ code: string }> }>>`select checks from plugin_versions where plugin_id = ${id} and version = ${version}`)[0]!.checks).map((c) => c.code);

/** Runs `npm run recheck`'s script on the test database: its exit code and output. */
function runRecheck(): Promise<{ code: number | null; out: string }> {
  const script = fileURLToPath(new URL('../../../../src/recheck.js', import.meta.url));
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, DATABASE_URL: process.env.TEST_DB_URL, DATA_DIR: tempDir(), LOG_LEVEL: 'warn', LAUNCHER_CONFIG: '/nonexistent/launcher.json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (out += chunk));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out })));
}

test('a rule that now applies is found by the recheck, said per version, and written; a second run finds nothing', async () => {
  assert.is((await client.post('/apps/api/plugins', newPlugin('rck-pending', { name: 'Quick Chat Tools' }), as(author))).status, 201);
  const zip = packageOf('rck-pending', '1.0.0', { 'main.py': '' }, { name: 'Quick Chat Tools' });
  assert.is((await uploadVersion(site.url, 'rck-pending', { zip }, as(author))).status, 201);
  assert.equal(await codesOf('rck-pending', '1.0.0'), []);
  // Meanwhile another author's plugin of that name is approved: a similar-name warning is due.
  await insertPlugin(sql, 'rck-quickchat', other, 'approved', { name: 'Quick Chat Tools' });
  // A version uploaded before manifests were read has nothing to recompute from: left alone.
  await sql`insert into plugin_versions (plugin_id, version, changelog, sha256, size, download, entry_count, files, status)
            values ('rck-pending', '0.9.0', '', ${'b'.repeat(64)}, 10, ${`${imghost.url}/pkg/${'b'.repeat(64)}/rck-pending-0.9.0.zip`}, 1, '[]', 'pending')`;

  const { checked, changes } = await recheckAll(sql);
  assert.ok(checked >= 1, `${checked} rechecked`);
  const mine = changes.filter((change) => change.plugin === 'rck-pending');
  assert.equal(mine, [{ plugin: 'rck-pending', version: '1.0.0', before: [], after: ['similar-name'] }]);
  assert.is(describeChange(mine[0]!), 'rck-pending 1.0.0: no checks -> similar-name');
  assert.equal(await codesOf('rck-pending', '1.0.0'), ['similar-name'], 'written');
  assert.equal(await codesOf('rck-pending', '0.9.0'), []);

  const again = await runRecheck();
  assert.is(again.code, 0, again.out);
  assert.match(again.out, /^\d+ versions rechecked, 0 changed\n$/m);
  assert.not.match(again.out, /rck-pending/);
});

test('the recheck says what changed in the checks the upload computed, file by file', async () => {
  assert.is((await client.post('/apps/api/plugins', newPlugin('rck-files'), as(author))).status, 201);
  assert.is((await client.post('/apps/api/plugins/rck-files/review', { action: 'approve' }, as(admin))).status, 200);
  const zip = packageOf('rck-files', '2.0.0', { 'x.dat': 'bytes' }, { permissions: ['ui.nav'] });
  assert.is((await uploadVersion(site.url, 'rck-files', { zip }, as(author))).status, 201);
  const before = await codesOf('rck-files', '2.0.0');
  // As if the rules were stricter when the checks were written: the recheck puts them back.
  await sql`update plugin_versions set checks = '[{"code":"native-executable","level":"warn","message":"old rule","file":"x.dat"}]' where plugin_id = 'rck-files'`;
  const run = await runRecheck();
  assert.is(run.code, 0, run.out);
  assert.match(run.out, new RegExp(`^rck-files 2\\.0\\.0: native-executable \\(x\\.dat\\) -> ${before.length === 0 ? 'no checks' : before.join(', ')}$`, 'm'));
  assert.match(run.out, /versions rechecked, 1 changed$/m);
  assert.equal(await codesOf('rck-files', '2.0.0'), before);
});

test.run();
