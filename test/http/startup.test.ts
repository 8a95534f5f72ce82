// The real entrypoints at start-up: a signal at any moment stops the embedded
// PostgreSQL they started; a PostgreSQL that cannot start is one line and exit 1;
// `npm start` reads its .env before choosing the launcher config.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { waitUntilNoneMention } from '../helpers/processes.js';

const entrypoint = (name: string) => fileURLToPath(new URL(`../../src/${name}.js`, import.meta.url));
const made: string[] = [];

/** A DATA_DIR the PostgreSQL user can enter, so the cluster stays inside it. */
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lw-startup-'));
  chmodSync(dir, 0o755);
  made.push(dir);
  return dir;
}

interface Running {
  child: ChildProcess;
  output(): string;
  /** Resolves when a line of the output matches. */
  seen(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<number | null>;
}

function run(name: string, env: Record<string, string | undefined>, cwd?: string): Running {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  delete base.LAUNCHER_CONFIG;
  const child = spawn(process.execPath, [entrypoint(name)], {
    cwd,
    env: { ...base, SITE_PORT: '0', IMGHOST_PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiters: Array<() => void> = [];
  const onData = (chunk: Buffer) => {
    output += chunk;
    for (const waiter of waiters.slice()) waiter();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    seen: (pattern, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`never printed ${pattern}:\n${output}`)), timeoutMs);
        const check = () => {
          const match = pattern.exec(output);
          if (!match) return;
          clearTimeout(timer);
          waiters.splice(waiters.indexOf(check), 1);
          resolve(match[1] ?? match[0]);
        };
        waiters.push(check);
        check();
        void exited.then(() => setTimeout(() => check(), 50));
      }),
  };
}

async function exitCode(running: Running, timeoutMs = 30_000): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([running.exited, new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)))]);
  clearTimeout(timer);
  if (code === 'late') {
    running.child.kill('SIGKILL');
    assert.unreachable(`still running ${timeoutMs / 1000} s after the signal:\n${running.output()}`);
  }
  return code as number | null;
}

test.after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const interruptions = [
  { what: 'npm start, SIGINT while the cluster is being created', entry: 'dev', signal: 'SIGINT', after: /"msg":"creating the embedded PostgreSQL cluster"/, code: 0 },
  { what: 'npm start, SIGTERM while PostgreSQL starts', entry: 'dev', signal: 'SIGTERM', after: /"msg":"DATABASE_URL is unset/, warm: true, code: 0 },
  { what: 'npm start, SIGINT right after PostgreSQL started (migrations)', entry: 'dev', signal: 'SIGINT', after: /"msg":"embedded PostgreSQL started"/, code: 0 },
  { what: 'npm start, SIGHUP (terminal closed) while the cluster is being created', entry: 'dev', signal: 'SIGHUP', after: /"msg":"creating the embedded PostgreSQL cluster"/, code: 0 },
  { what: 'node dist/site.js, SIGTERM while the cluster is being created', entry: 'site', signal: 'SIGTERM', after: /"msg":"creating the embedded PostgreSQL cluster"/, code: 0 },
  { what: 'npm run migrate, SIGINT right after PostgreSQL started (exit 130: not migrated)', entry: 'migrate', signal: 'SIGINT', after: /"msg":"embedded PostgreSQL started"/, code: 130 },
] as const;

for (const interruption of interruptions) {
  test(`a signal during start-up stops the embedded PostgreSQL and exits: ${interruption.what}`, async () => {
    const data = dataDir();
    if ('warm' in interruption) {
      // The cluster exists already: the signal lands while postgres starts.
      const first = run('migrate', { DATA_DIR: data });
      assert.is(await exitCode(first, 60_000), 0, first.output());
    }
    const running = run(interruption.entry, { DATA_DIR: data });
    await running.seen(interruption.after);
    running.child.kill(interruption.signal);
    assert.is(await exitCode(running), interruption.code, running.output());
    assert.match(running.output(), /"msg":"shutting down"/);
    assert.equal(await waitUntilNoneMention(join(data, 'pg')), [], `PostgreSQL left running:\n${running.output()}`);
    assert.equal(readdirSync(data).filter((name) => name.includes('.initdb-')), [], 'a half-made cluster is left');
    if (existsSync(join(data, 'pg'))) assert.ok(existsSync(join(data, 'pg', 'PG_VERSION')), 'the cluster folder is complete or absent');
  });
}

test('a data folder from another major version: exit 1, one line saying what to do, nothing left running', async () => {
  const data = dataDir();
  mkdirSync(join(data, 'pg'));
  writeFileSync(join(data, 'pg', 'PG_VERSION'), '12\n');
  writeFileSync(join(data, 'pg.password'), 'x\n');
  for (const entry of ['migrate', 'site', 'dev']) {
    const running = run(entry, { DATA_DIR: data });
    assert.is(await exitCode(running), 1, running.output());
    const stderr = running.output().split('\n').filter((line) => line && !line.startsWith('{'));
    assert.is(stderr.length, 1, running.output());
    assert.match(stderr[0]!, /was made by PostgreSQL 12 and the embedded PostgreSQL is \d+: move that folder away/, running.output());
    assert.not.match(running.output(), /\bat .*\.js:\d+/, 'no stack trace');
    assert.not.match(running.output(), /Unhandled 'error' event/);
  }
  assert.equal(await waitUntilNoneMention(join(data, 'pg')), []);
});

test('DOWNLOAD_HOSTS without the image host\'s public address: the site stops at start-up, exit 1, one line naming IMAGE_HOST_PUBLIC_URL', async () => {
  const running = run('site', { DATA_DIR: dataDir(), DOWNLOAD_HOSTS: 'store.bloret.com', IMAGE_HOST_PUBLIC_URL: 'https://img.example.org' });
  assert.is(await exitCode(running), 1, running.output());
  const lines = running.output().split('\n').filter((line) => line !== '');
  assert.is(lines.length, 1, running.output());
  assert.match(lines[0]!, /^configuration error: IMAGE_HOST_PUBLIC_URL: its host img\.example\.org is not in DOWNLOAD_HOSTS \(store\.bloret\.com\)/);
});

test('npm start reads LAUNCHER_CONFIG from .env (not only from the environment)', async () => {
  const data = dataDir();
  const document = JSON.parse(readFileSync(fileURLToPath(new URL('../../../config/launcher.example.json', import.meta.url)), 'utf8'));
  document.latestVersion = '9.8.7-from-dotenv';
  writeFileSync(join(data, 'mine.json'), JSON.stringify(document));
  writeFileSync(join(data, '.env'), `LAUNCHER_CONFIG=${join(data, 'mine.json')}\nDATA_DIR=${data}\n`);
  const running = run('dev', { DATABASE_URL: process.env.TEST_DB_URL }, data);
  try {
    const site = await running.seen(/site: +(http:\/\/\S+)/);
    const info = await (await fetch(site + '/api/info')).json();
    assert.is(info.latestVersion, '9.8.7-from-dotenv');
  } finally {
    running.child.kill('SIGINT');
    assert.is(await exitCode(running), 0, running.output());
  }
});

test.run();
