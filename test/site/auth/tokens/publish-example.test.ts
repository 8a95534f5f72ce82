// The CI publishing example of docs/api.md (section "API tokens"), run as written
// against a real site: it is read out of docs/api.md here, so the two cannot drift
// apart.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../../../src/lib/project-root.js';
import { closeTestSql, startTestSite, tempDir, testSql, type TestServer } from '../../../helpers/servers.js';
import { pluginIn, storeClient, storeUsers, type Users } from '../../store/store-client.js';
import { newToken, tokenClient } from './token-client.js';

let site: TestServer;
let users: Users;

test.before(async () => {
  site = await startTestSite();
  users = await storeUsers(testSql());
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

/** The fenced block right after `<!-- publish-example: KIND -->` in docs/api.md. */
function docBlock(kind: string): string {
  const doc = readFileSync(join(projectRoot(), 'docs', 'api.md'), 'utf8');
  const marker = `<!-- publish-example: ${kind} -->\n`;
  const at = doc.indexOf(marker);
  if (at === -1) throw new Error(`docs/api.md has no ${marker.trim()}`);
  const block = /^```[a-z]*\n([\s\S]*?)\n```/m.exec(doc.slice(at + marker.length));
  if (!block) throw new Error(`no fenced block after ${marker.trim()}`);
  return block[1]!;
}

function runShell(script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('docs/api.md publish example: run as written, it submits the new version as a pending update', async () => {
  const store = storeClient(site.url);
  await pluginIn(store, users, 'approved', 'readme-plugin');
  const { secret } = await newToken(tokenClient(site.url), users.alice, { name: 'readme ci' });
  const zip = join(tempDir(), 'readme-plugin.zip');
  writeFileSync(zip, 'PK\u0003\u0004 not really a zip, but bytes to hash');
  const env = {
    SITE_URL: site.url,
    LWT_TOKEN: secret,
    PLUGIN_ID: 'readme-plugin',
    VERSION: '1.2.3',
    DOWNLOAD_URL: 'https://github.com/someone/readme-plugin/releases/download/1.2.3/readme-plugin.zip',
    ZIP_FILE: zip,
  };
  const run = await runShell(docBlock('sh'), env);
  assert.is(run.code, 0, run.stderr + run.stdout);
  const answer = JSON.parse(run.stdout);
  assert.is(answer.success, true);
  assert.is(answer.plugin.version, '1.0.0', 'the live record waits for review');
  assert.is(answer.plugin.pendingUpdate.version, '1.2.3');
  assert.is(answer.plugin.pendingUpdate.download, env.DOWNLOAD_URL);
  assert.is(answer.plugin.pendingUpdate.sha256, createHash('sha256').update(readFileSync(zip)).digest('hex'));
});

test('docs/api.md publish example: a bad token fails the script (non-zero exit) and prints the error JSON', async () => {
  const run = await runShell(docBlock('sh'), {
    SITE_URL: site.url,
    LWT_TOKEN: 'lwt_' + 'x'.repeat(43),
    PLUGIN_ID: 'readme-plugin',
    VERSION: '9.9.9',
    DOWNLOAD_URL: 'https://example.com/x.zip',
    ZIP_FILE: join(projectRoot(), 'README.md'),
  });
  assert.is.not(run.code, 0);
  assert.is(JSON.parse(run.stdout).code, 'UNAUTHORIZED');
});

test('docs/api.md GitHub Actions step runs the same script as the shell example', () => {
  const script = docBlock('sh')
    .split('\n')
    .filter((line) => !line.startsWith('#'));
  const step = docBlock('github-actions');
  const run = step.slice(step.indexOf('run: |\n') + 'run: |\n'.length).split('\n').map((line) => line.replace(/^ {4}/, ''));
  assert.equal(run, script);
  for (const name of ['SITE_URL', 'LWT_TOKEN', 'PLUGIN_ID', 'VERSION', 'DOWNLOAD_URL', 'ZIP_FILE']) assert.match(step, new RegExp(`^    ${name}: `, 'm'), name);
});

test.run();
