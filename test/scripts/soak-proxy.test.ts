// The soak's reverse proxy (scripts/soak/proxy.ts) stands in for nginx in front of two
// site processes: a read answered 503 goes to the other host, as
// `proxy_next_upstream http_503` does (docs/operations.md), a write never does.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../src/lib/project-root.js';

const SCRIPT = join(projectRoot(), '.test-build', 'scripts', 'soak', 'proxy.js');

/** A host that answers every request with `status` and says who it is; counts what it was asked. */
async function host(name: string, status: number) {
  const asked: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      asked.push(`${req.method} ${req.url} ${body}`);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ from: name }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { asked, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(r)) };
}

async function startProxy(targets: string[], env: Record<string, string>): Promise<{ origin: string; child: ChildProcess }> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  const child = spawn(process.execPath, [SCRIPT, String(port), ...targets], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve());
    child.on('exit', (code) => reject(new Error(`proxy exited ${code}`)));
  });
  return { origin: `http://127.0.0.1:${port}`, child };
}

const cases = [
  { what: 'a GET answered 503 by one host is answered by the other', method: 'GET', path: '/apps/api/plugins/x', status: 200 },
  { what: 'a HEAD too', method: 'HEAD', path: '/apps/api/plugins/x', status: 200 },
  { what: 'the update check (a POST named in RETRY_503_POSTS) too', method: 'POST', path: '/apps/api/updates', status: 200 },
  { what: 'another POST (a write) is never asked twice', method: 'POST', path: '/apps/api/plugins', status: 503 },
];

test('soak proxy: 503 of a read goes to the next host, a write stays', async () => {
  const down = await host('down', 503);
  const up = await host('up', 200);
  // Both orders of the round robin: each request starts at the other host.
  const proxy = await startProxy([down.origin, up.origin], { RETRY_503_POSTS: '/apps/api/updates' });
  try {
    for (const c of cases) {
      for (let turn = 0; turn < 2; turn++) {
        const res = await fetch(`${proxy.origin}${c.path}`, { method: c.method, body: c.method === 'POST' ? '{"installed":[]}' : undefined });
        await res.arrayBuffer();
        if (c.status === 200) assert.is(res.status, 200, `${c.what} (turn ${turn})`);
        // A write goes to whichever host the round robin picks, once.
        else assert.ok(res.status === 503 || res.status === 200, `${c.what}: ${res.status}`);
      }
    }
    const writes = [...down.asked, ...up.asked].filter((line) => line.startsWith('POST /apps/api/plugins '));
    assert.is(writes.length, 2, `each write asked once: ${writes.join(' | ')}`);
    const downWrites = down.asked.filter((line) => line.startsWith('POST /apps/api/plugins '));
    assert.is(downWrites.length, 1, 'one of the two writes met the 503 host and was answered 503');
  } finally {
    proxy.child.kill('SIGTERM');
    await Promise.all([down.close(), up.close()]);
  }
});

test('soak proxy: when every host answers 503, the last one\'s 503 is the answer', async () => {
  const a = await host('a', 503);
  const b = await host('b', 503);
  const proxy = await startProxy([a.origin, b.origin], {});
  try {
    const res = await fetch(`${proxy.origin}/apps/api/plugins`);
    assert.is(res.status, 503);
    assert.is(a.asked.length + b.asked.length, 2, 'asked of each host once');
  } finally {
    proxy.child.kill('SIGTERM');
    await Promise.all([a.close(), b.close()]);
  }
});

test.run();
