// Two built site processes on one PostgreSQL behind a reverse proxy that deals
// requests round-robin and appends X-Forwarded-For (TRUST_PROXY=true: one hop).
// Everything shared lives in PostgreSQL, so a visitor cannot tell which process
// answered: a session made through one works through the other, a per-address
// limit counts across both, an install click counts once, the update check
// answers the same bytes, and a webhook delivery is attempted once.
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLocalAccount } from '../../src/services/site/auth/local-accounts.js';
import { projectRoot } from '../../src/lib/project-root.js';
import { UPDATE_CHECKS_PER_MINUTE, UPDATE_CHECKS_UNFLUSHED } from '../../src/services/site/store/versions/limits.js';
import { setCookie } from '../helpers/fake-idp.js';
import { closeTestSql, tempDir, testSql } from '../helpers/servers.js';
import { insertPlugin, testUser, type TestUser } from '../helpers/store-fixtures.js';
import { waitFor } from '../helpers/time.js';

const PUBLIC_URL = 'http://site.test';
/** A port the webhook may name (WEBHOOK_ALLOWED_PORTS); nothing needs to listen there. */
const WEBHOOK_PORT = 9443;
const sql = testSql();

interface SiteProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<number | null>;
}

/** Starts the compiled entrypoint (node .../src/site.js) on DATABASE_URL; resolves once it listens. */
function startSiteProcess(): Promise<SiteProcess> {
  const entry = fileURLToPath(new URL('../../src/site.js', import.meta.url));
  const child = spawn(process.execPath, [entry], {
    cwd: tempDir(), // no stray .env
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      SITE_PORT: '0',
      DATA_DIR: tempDir(),
      DATABASE_URL: process.env.TEST_DB_URL,
      PUBLIC_URL,
      TRUST_PROXY: 'true',
      ADMIN_USERS: 'tp-admin',
      WEBHOOK_ALLOWED_PORTS: String(WEBHOOK_PORT),
      LAUNCHER_CONFIG: join(projectRoot(), 'config', 'launcher.example.json'),
      // Debug: each job loop's claims are logged with their time (src/db/job-loop.ts).
      LOG_LEVEL: 'debug',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the site never listened:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const listening = /"msg":"site listening","url":"(http:\/\/[^"]+)"/.exec(output);
      if (!listening) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stdout!.on('data', (more: Buffer) => (output += more));
      resolve({ child, url: listening[1]!, output: () => output, exited });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    void exited.then((code) => reject(new Error(`the site exited (${code}):\n${output}`)));
  });
}

interface Proxy {
  url: string;
  close(): Promise<void>;
}

/**
 * A reverse proxy as nginx is set up in docs/operations.md: round-robin over
 * `backends`, appending the peer's address to X-Forwarded-For; it says which
 * backend answered in X-Test-Backend (0, 1).
 */
async function startProxy(backends: string[]): Promise<Proxy> {
  let next = 0;
  const server: Server = createServer((req, res) => {
    const index = next++ % backends.length;
    const target = new URL(backends[index]!);
    const forwarded = req.headers['x-forwarded-for'];
    const peer = req.socket.remoteAddress!.replace(/^::ffff:/, '');
    const headers = { ...req.headers, 'x-forwarded-for': forwarded ? `${forwarded}, ${peer}` : peer };
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode!, { ...answer.headers, 'x-test-backend': String(index) });
      answer.pipe(res);
    });
    upstream.on('error', () => {
      res.writeHead(502).end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let sites: SiteProcess[] = [];
let proxy: Proxy;
let admin: TestUser;

/** Through the proxy; `backend` says which process answered. */
async function call(path: string, init: RequestInit = {}): Promise<{ status: number; backend: string; headers: Headers; text: string }> {
  const response = await fetch(proxy.url + path, init);
  return { status: response.status, backend: response.headers.get('x-test-backend')!, headers: response.headers, text: await response.text() };
}

const json = (method: string, body: unknown, extra: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', origin: PUBLIC_URL, ...extra },
  body: JSON.stringify(body),
});

test.before(async () => {
  sites = await Promise.all([startSiteProcess(), startSiteProcess()]);
  proxy = await startProxy(sites.map((site) => site.url));
  admin = await testUser(sql, 'tp-admin', { admin: true });
  await createLocalAccount(sql, { username: 'tp-alice', password: 'correct horse battery staple' });
  await insertPlugin(sql, 'tp-one', admin, 'approved');
});
test.after(async () => {
  await proxy?.close();
  for (const site of sites) site.child.kill('SIGTERM');
  for (const site of sites) await site.exited;
  await closeTestSql();
});

test('a session made through one process works through the other', async () => {
  const login = await fetch(proxy.url + '/apps/auth/password', json('POST', { username: 'tp-alice', password: 'correct horse battery staple' }));
  assert.is(login.status, 200, await login.text());
  const cookie = setCookie(login, 'sid')!;
  assert.ok(cookie, 'the login set a session cookie');
  const seen = new Map<string, number>();
  for (let i = 0; i < 4; i++) {
    const me = await call('/apps/api/me', { headers: { cookie } });
    assert.is(me.status, 200, me.text);
    assert.is(JSON.parse(me.text).user.username, 'tp-alice');
    seen.set(me.backend, (seen.get(me.backend) ?? 0) + 1);
  }
  assert.equal([...seen.keys()].sort(), ['0', '1'], 'both processes answered');
});

test('the update check answers the same bytes from both; its per-address limit counts across both (429 from the shared limiter)', async () => {
  const check = () => call('/apps/api/updates', json('POST', { plugins: [{ id: 'tp-one', version: '0.1.0' }] }));
  // Over two processes the limit lets through at most one batch more (db/batched-rate-limiter.ts).
  const most = UPDATE_CHECKS_PER_MINUTE + UPDATE_CHECKS_UNFLUSHED;
  const answers: Array<{ status: number; backend: string; text: string; headers: Headers }> = [];
  while (answers.length <= most) {
    const answer = await check();
    answers.push(answer);
    if (answer.status !== 200) break;
  }
  const allowed = answers.filter((answer) => answer.status === 200);
  const refused = answers.at(-1)!;
  assert.is(refused.status, 429, `${allowed.length} checks answered and none refused`);
  assert.is(JSON.parse(refused.text).code, 'RATE_LIMITED');
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
  assert.ok(allowed.length >= UPDATE_CHECKS_PER_MINUTE && allowed.length <= most, `${allowed.length} allowed`);
  // Neither process alone saw the limit's worth: the 429 comes from the count they share.
  for (const backend of ['0', '1']) assert.ok(allowed.filter((answer) => answer.backend === backend).length < UPDATE_CHECKS_PER_MINUTE, backend);
  const fromEach = ['0', '1'].map((backend) => allowed.find((answer) => answer.backend === backend)!.text);
  assert.is(fromEach[0], fromEach[1], 'the same answer from both processes');
  assert.is(JSON.parse(fromEach[0]!).updates[0].id, 'tp-one');
});

test('the client address is the one the proxy appended: an X-Forwarded-For the client wrote changes nothing', async () => {
  const click = (spoofed: string) => call('/apps/api/plugins/tp-one/install-click', { method: 'POST', headers: { origin: PUBLIC_URL, 'x-forwarded-for': spoofed } });
  const first = await click('203.0.113.1');
  const second = await click('203.0.113.2');
  assert.equal([first.status, second.status], [200, 200]);
  assert.not.equal(first.backend, second.backend, 'one click through each process');
  // Two different claimed addresses, one real one: counted once, across both processes.
  assert.is(JSON.parse(second.text).installCount, JSON.parse(first.text).installCount);
  const [row] = await sql<Array<{ install_count: string }>>`select install_count::text from plugins where id = 'tp-one'`;
  assert.is(Number(row!.install_count), JSON.parse(first.text).installCount);
});

test('a webhook delivery is attempted once, by one of the two processes', async () => {
  const owner = await testUser(sql, 'tp-owner');
  const put = await call('/apps/api/webhook', json('PUT', { url: `https://hook.tp.example:${WEBHOOK_PORT}/hook` }, { cookie: owner.cookie }));
  assert.is(put.status, 200, put.text);
  await insertPlugin(sql, 'tp-pending', owner, 'pending');
  // The approval (through whichever process) notifies the owner and queues one delivery; both processes' workers hear of it.
  const review = await call('/apps/api/plugins/tp-pending/review', json('POST', { action: 'approve' }, { cookie: admin.cookie }));
  assert.is(review.status, 200, review.text);
  const deliveries = () => sql<Array<{ attempts: number; claim: string | null }>>`
    select d.attempts, d.claim from webhook_deliveries d join users u on u.id = d.user_id where u.username = 'tp-owner'`;
  // The host does not resolve, so the attempt fails and waits for its retry (30 s on).
  await waitFor('the attempt and its failure recorded', async () => {
    const rows = await deliveries();
    return rows.length === 1 && rows[0]!.attempts > 0 && rows[0]!.claim === null;
  }, 10_000);
  // A claim counts its attempt as it takes the row, before it is logged, and a
  // process claims one batch at a time: once each process has logged a claim that
  // began after this, every claim either made that could take the delivery has
  // been counted.
  const recorded = Date.now();
  const claimedSince = (site: SiteProcess) =>
    [...site.output().matchAll(/"msg":"webhook delivery claim","claimAt":"([^"]+)"/g)].some((claim) => Date.parse(claim[1]!) > recorded);
  await waitFor('both processes to claim again after the attempt', () => sites.every(claimedSince), 10_000);
  assert.equal((await deliveries()).map((row) => row.attempts), [1]);
});

test.run();
