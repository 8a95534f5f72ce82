// SIGTERM on the real entrypoint: stop accepting, finish the request in flight,
// close the pool, exit 0.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../helpers/servers.js';

test('SIGTERM lets the request in flight finish, then exits 0', async () => {
  const script = fileURLToPath(new URL('../../src/site.js', import.meta.url));
  const child = spawn(process.execPath, [script], {
    env: {
      ...process.env,
      DATABASE_URL: process.env.TEST_DB_URL,
      SITE_PORT: '0',
      DATA_DIR: tempDir(),
      LOG_LEVEL: 'info',
      LAUNCHER_CONFIG: '/nonexistent/launcher.json',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('site did not start: ' + log)), 20_000);
    child.stdout.on('data', (chunk) => {
      log += chunk;
      const match = /"msg":"site listening","url":"([^"]+)"/.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr.on('data', (chunk) => (log += chunk));
  });

  const body = JSON.stringify({ username: 'nobody', password: 'wrong password here' });
  const target = new URL(url);
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, method: 'POST', path: '/apps/auth/password', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.write(body.slice(0, 10));
    setTimeout(() => {
      child.kill('SIGTERM');
      setTimeout(async () => {
        // New connections are refused while the old request is still open.
        const refused = await fetch(url + '/healthz').then(() => false, () => true);
        assert.ok(refused, 'still accepting new connections after SIGTERM');
        req.end(body.slice(10));
      }, 400);
    }, 200);
  });

  const response = await answer;
  assert.is(response.status, 401);
  assert.is(JSON.parse(response.body).code, 'INVALID_CREDENTIALS');
  assert.is(await exited, 0);
  assert.match(log, /"msg":"stopped"/);
});

test.run();
