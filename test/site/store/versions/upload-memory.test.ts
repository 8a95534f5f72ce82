// A 32 MiB package through a real site process (the entrypoint, as operators run
// it) to a real image host: the site streams it, so its peak RSS (VmHWM, reset
// just before) grows by less than 40 MiB over what it held before the upload.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { multipartBody } from '../../../helpers/media.js';
import { testUser } from '../../../helpers/store-fixtures.js';
import { closeTestSql, startTestImghost, tempDir, testSql, type TestServer } from '../../../helpers/servers.js';
import { pluginZip } from '../../../helpers/zip-writer.js';
import { newPlugin, storeClient } from '../store-client.js';
import { packageOf, uploadVersion } from './versions-client.js';

const MiB = 1024 * 1024;
let imghost: TestServer;
let child: ChildProcess | undefined;

test.after(async () => {
  child?.kill('SIGTERM');
  await imghost?.close();
  await closeTestSql();
});

function startSiteProcess(env: Record<string, string>): Promise<{ url: string; pid: number }> {
  const script = fileURLToPath(new URL('../../../../src/site.js', import.meta.url));
  child = spawn(process.execPath, [script], {
    env: { ...process.env, DATABASE_URL: process.env.TEST_DB_URL, SITE_PORT: '0', DATA_DIR: tempDir(), LOG_LEVEL: 'warn', LAUNCHER_CONFIG: '/nonexistent/launcher.json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('site did not start: ' + log)), 30_000);
    child!.on('exit', () => reject(new Error('site exited: ' + log)));
    child!.stderr!.on('data', (chunk) => (log += chunk));
    child!.stdout!.on('data', (chunk) => {
      log += chunk;
      const match = /"msg":"site listening","url":"([^"]+)"/.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, pid: child!.pid! });
      }
    });
  });
}

/** kB of a /proc/<pid>/status line (VmRSS, VmHWM). */
function statusKb(pid: number, key: string): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((row) => row.startsWith(`${key}:`));
  return Number(/(\d+)/.exec(line!)![1]);
}

test('a 32 MiB package through the site grows its peak RSS by less than 40 MiB', async () => {
  imghost = await startTestImghost();
  const site = await startSiteProcess({ IMAGE_HOST_URL: imghost.url, IMAGE_HOST_PUBLIC_URL: imghost.url, LOG_LEVEL: 'info' });
  const sql = testSql();
  const author = await testUser(sql, 'vermem-author');
  const client = storeClient(site.url);
  assert.is((await client.post('/apps/api/plugins', newPlugin('vermem-big'), { cookie: author.cookie })).status, 201);
  // The ZIP and its form built before the warm-up: on a loaded machine building
  // 32 MiB took longer than the site's 5 s keep-alive (the form alone 3 s at a load
  // of 14 on 2 cores), and fetch then wrote the body into the connection the site
  // had just closed (EPIPE, "fetch failed").
  const zip = pluginZip('vermem-big', '1.0.0', [{ name: 'big.bin', data: randomBytes(32 * MiB - 4096), method: 0 }]);
  assert.ok(zip.length <= 32 * MiB && zip.length > 31 * MiB);
  const form = multipartBody([{ name: 'version', data: '1.0.0' }, { name: 'file', filename: 'plugin.zip', contentType: 'application/zip', data: zip }]);
  // Warm the route up (code loaded, pools open) before measuring.
  assert.is((await uploadVersion(site.url, 'vermem-big', { zip: packageOf('vermem-big', '0.0.1', { 'a.txt': 'a' }), version: '0.0.1' }, { cookie: author.cookie })).status, 201);
  // Peak RSS from here on (clear_refs 5 resets VmHWM to the current RSS).
  writeFileSync(`/proc/${site.pid}/clear_refs`, '5');
  const before = statusKb(site.pid, 'VmRSS');
  const response = await fetch(`${site.url}/apps/api/plugins/vermem-big/versions`, {
    method: 'POST',
    headers: { cookie: author.cookie, 'content-type': form.contentType },
    // A view of the form's bytes, not a copy.
    body: new Uint8Array(form.body.buffer as ArrayBuffer, form.body.byteOffset, form.body.length),
  });
  const answer = { status: response.status, body: await response.json() };
  const peak = statusKb(site.pid, 'VmHWM');
  assert.is(answer.status, 201, JSON.stringify(answer.body));
  assert.is(answer.body.version.size, zip.length);
  const growthMiB = (peak - before) / 1024;
  console.log(`site RSS ${Math.round(before / 1024)} MiB before, peak ${Math.round(peak / 1024)} MiB (+${growthMiB.toFixed(1)} MiB) for a ${(zip.length / MiB).toFixed(1)} MiB package`);
  assert.ok(growthMiB < 40, `peak RSS grew by ${growthMiB.toFixed(1)} MiB`);
});

test.run();
