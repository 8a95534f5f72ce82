// scripts/smoke.sh, the deployers' curl check, run for real against both services
// started here: it passes against a working deployment and stops at the first
// failure with a non-zero exit when the image host is down.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../src/lib/project-root.js';
import { closeTestSql, startTestImghost, startTestSite, testSql, type TestServer } from './helpers/servers.js';
import { newPlugin, pluginIn, storeClient, storeUsers } from './site/store/store-client.js';

const SCRIPT = join(projectRoot(), 'scripts', 'smoke.sh');
const EXAMPLE_CONFIG = join(projectRoot(), 'config', 'launcher.example.json');
const PLUGIN_ID = 'smoke.test-plugin';

interface Run {
  code: number | null;
  lines: string[];
  stderr: string;
}

function runSmoke(env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    // Only what the script needs: it must not lean on anything else in the environment.
    const child = spawn('sh', [SCRIPT], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, lines: stdout.split('\n').filter(Boolean), stderr }));
  });
}

const Smoke = suite('scripts/smoke.sh');
let imghost: TestServer;
let site: TestServer;
let cookie: string;

Smoke.before(async () => {
  imghost = await startTestImghost();
  site = await startTestSite({ IMAGE_HOST_URL: imghost.url, LAUNCHER_CONFIG: EXAMPLE_CONFIG });
  const users = await storeUsers(testSql(), 'smoke-');
  await pluginIn(storeClient(site.url), users, 'approved', PLUGIN_ID, newPlugin(PLUGIN_ID));
  cookie = users.bob;
});
Smoke.after(async () => {
  await site.close();
  await imghost.close();
  await closeTestSql();
});

Smoke('passes every step against a working deployment, with a session and an approved plugin', async () => {
  const run = await runSmoke({ SITE_URL: site.url, IMGHOST_URL: imghost.url + '/', SESSION_COOKIE: cookie, PLUGIN_ID });
  assert.is(run.code, 0, run.lines.join('\n') + run.stderr);
  const steps = run.lines.slice(0, -1);
  assert.is(run.lines.at(-1), 'all smoke steps passed');
  for (const line of steps) assert.match(line, /^ok {4}\S.* {2}200 {2}\d+\.\d+s$/, line);
  const names = steps.map((line) => line.slice(6).replace(/ {2}200 .*$/, '').trim());
  assert.equal(names, [
    'site /healthz',
    'site /readyz (PostgreSQL)',
    'image host /healthz',
    'image host /readyz (image folder)',
    'site /api/info',
    'site /api/fastdownload',
    'site plugin list',
    `site plugin ${PLUGIN_ID}`,
    `site plugin ${PLUGIN_ID} manifest`,
    `site plugin ${PLUGIN_ID} install link`,
    'image host upload',
    'image host original',
    'image host WebP preview',
    'site media upload',
    'site media upload: its URL',
    'image host icon as SVG',
    'image host icon as PNG',
  ]);
});

Smoke('without SESSION_COOKIE and PLUGIN_ID it skips those steps and still passes', async () => {
  const run = await runSmoke({ SITE_URL: site.url, IMGHOST_URL: imghost.url });
  assert.is(run.code, 0, run.lines.join('\n') + run.stderr);
  assert.not.ok(run.lines.some((line) => line.includes('media upload') || line.includes(PLUGIN_ID)));
});

Smoke('an unknown PLUGIN_ID fails at the plugin detail, and nothing runs after it', async () => {
  const run = await runSmoke({ SITE_URL: site.url, IMGHOST_URL: imghost.url, PLUGIN_ID: 'no.such-plugin' });
  assert.is.not(run.code, 0);
  assert.match(run.lines.at(-1) ?? '', /^FAIL {2}site plugin no\.such-plugin .* 404 /);
});

Smoke('without SITE_URL it explains its usage and exits non-zero', async () => {
  const run = await runSmoke({ IMGHOST_URL: imghost.url });
  assert.is(run.code, 2);
  assert.match(run.stderr, /usage: SITE_URL=/);
});

Smoke('the image host down: FAIL at its first step, non-zero exit', async () => {
  await imghost.close();
  const run = await runSmoke({ SITE_URL: site.url, IMGHOST_URL: imghost.url, SESSION_COOKIE: cookie, PLUGIN_ID });
  assert.is.not(run.code, 0);
  assert.ok(run.lines.slice(0, 2).every((line) => line.startsWith('ok ')), run.lines.join('\n'));
  assert.match(run.lines.at(-1) ?? '', /^FAIL {2}image host \/healthz {2,}000 /);
  assert.is(run.lines.length, 3, 'stopped at the first failure');
});

Smoke.run();
