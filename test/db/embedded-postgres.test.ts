// The embedded PostgreSQL (npm start and npm test without DATABASE_URL): runs from
// any checkout, and every way it can fail to start ends in one line saying what to
// do, with no PostgreSQL process left behind.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger, silentLogger } from '../../src/lib/log.js';
import { EmbeddedPostgresError, StartAborted, startEmbeddedPostgres, type EmbeddedOptions } from '../../src/db/embedded.js';
import { platformBinaries, reachableBinaries } from '../../src/db/embedded/binaries.js';
import { isRoot, postgresRunAs } from '../../src/db/embedded/run-as.js';
import { processesMentioning, waitUntilNoneMention } from '../helpers/processes.js';

const real = platformBinaries();
// The installed binaries as the PostgreSQL user can run them (a /var/tmp copy when
// this checkout is below a 0700 folder): the fake trees below borrow from them.
const runnable = reachableBinaries(real.native, real.version, postgresRunAs(silentLogger), silentLogger).dir;
const made: string[] = [];

/** A folder the PostgreSQL user can enter (mkdtemp makes 0700 ones). */
function openDir(prefix = 'lw-epg-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  made.push(dir);
  return dir;
}

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger({}, { level: 'info', write: (line) => lines.push(JSON.parse(line)) });
  return { log, lines, messages: () => lines.map((line) => String(line.msg)) };
}

/** A native/ tree whose bin/ holds the given programs; lib/ and share/ are the real ones. */
function fakeNative(programs: Record<'initdb' | 'postgres', (target: string) => void>): { native: string; version: string } {
  const native = join(openDir('lw-epg-native-'), 'native');
  mkdirSync(join(native, 'bin'), { recursive: true });
  for (const part of ['lib', 'share']) symlinkSync(join(runnable, part), join(native, part));
  programs.initdb(join(native, 'bin', 'initdb'));
  programs.postgres(join(native, 'bin', 'postgres'));
  return { native, version: 'test' };
}
const copyOf = (name: string, mode = 0o755) => (target: string) => {
  copyFileSync(join(runnable, 'bin', name), target);
  chmodSync(target, mode);
};
const linkTo = (name: string) => (target: string) => symlinkSync(join(runnable, 'bin', name), target);

async function expectFailure(options: EmbeddedOptions, pattern: RegExp): Promise<string> {
  let error: unknown;
  try {
    const db = await startEmbeddedPostgres(options);
    await db.stop();
  } catch (caught) {
    error = caught;
  }
  assert.instance(error, EmbeddedPostgresError, `expected a failure matching ${pattern}`);
  const message = (error as Error).message;
  assert.not.match(message, /\n/, 'one line');
  assert.match(message, pattern);
  return message;
}

async function assertNothingLeft(clusterDir: string): Promise<void> {
  assert.equal(await waitUntilNoneMention(clusterDir), [], `processes left running on ${clusterDir}`);
  const parent = dirname(clusterDir);
  if (existsSync(parent)) {
    assert.equal(readdirSync(parent).filter((name) => name.includes('.initdb-')), [], 'a half-made cluster is left');
  }
}

function freePortHeld(): Promise<{ port: number; close(): void }> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ port: typeof address === 'object' && address ? address.port : 0, close: () => server.close() });
    });
  });
}

test.after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

type Prepared = Partial<EmbeddedOptions> & { cleanup?(): void };
const failures: Array<{ what: string; prepare(dir: string): Prepared | Promise<Prepared>; expected: RegExp }> = [
  {
    what: 'a data folder made by another major version (PG_VERSION 12)',
    prepare: (dir) => {
      mkdirSync(dir);
      writeFileSync(join(dir, 'PG_VERSION'), '12\n');
      writeFileSync(dir + '.password', 'x\n');
      return {};
    },
    expected: /was made by PostgreSQL 12 and the embedded PostgreSQL is \d+: move that folder away/,
  },
  {
    what: 'a data folder that holds something else',
    prepare: (dir) => {
      mkdirSync(dir);
      writeFileSync(join(dir, 'notes.txt'), 'mine');
      return {};
    },
    expected: /is not empty but holds no PostgreSQL cluster/,
  },
  {
    what: 'a cluster without its password file',
    prepare: (dir) => {
      mkdirSync(dir);
      writeFileSync(join(dir, 'PG_VERSION'), '18\n');
      return {};
    },
    expected: /has no password file/,
  },
  {
    what: 'the port is already in use',
    prepare: async () => {
      const held = await freePortHeld();
      return { port: held.port, cleanup: held.close };
    },
    expected: /port \d+ on 127\.0\.0\.1 is already in use/,
  },
  {
    what: 'initdb cannot be run (not executable)',
    prepare: () => ({ native: fakeNative({ initdb: copyOf('initdb', 0o644), postgres: linkTo('postgres') }) }),
    expected: /could not run \S+\/bin\/initdb: permission denied \(EACCES\)/,
  },
  {
    what: 'initdb fails (its postgres cannot bootstrap)',
    prepare: () => ({
      native: fakeNative({
        initdb: copyOf('initdb'),
        // Answers initdb's version check like the real one, then fails the bootstrap.
        postgres: (target) => {
          const version = `postgres (PostgreSQL) ${real.version.split('.').slice(0, 2).join('.')}`;
          writeFileSync(target, `#!/bin/sh\nif [ "$1" = "-V" ] || [ "$1" = "--version" ]; then echo "${version}"; exit 0; fi\necho "bootstrap refused" >&2\nexit 1\n`, { mode: 0o755 });
        },
      }),
    }),
    expected: /initdb could not create the embedded PostgreSQL cluster in \S+: .+/,
  },
];

for (const failure of failures) {
  test(`fails in one line, leaving nothing running: ${failure.what}`, async () => {
    const dir = join(openDir(), 'pg');
    const { log } = capturingLogger();
    const { cleanup, ...extra } = await failure.prepare(dir);
    try {
      await expectFailure({ dir, log, ...extra }, failure.expected);
    } finally {
      cleanup?.();
    }
    await assertNothingLeft(dir);
  });
}

// Regression: `npm run user -- add` while `npm start` served failed with "another
// PostgreSQL is running on this cluster", so nobody could add the first
// administrator without stopping the services.
test('a second start on a running cluster uses that server, and its stop leaves it running', async () => {
  const dir = join(openDir(), 'pg');
  const first = await startEmbeddedPostgres({ dir, log: capturingLogger().log });
  try {
    const second = capturingLogger();
    const attached = await startEmbeddedPostgres({ dir, log: second.log });
    assert.ok(second.messages().some((message) => message.startsWith('using the embedded PostgreSQL that is already running')));
    assert.is(attached.url, first.url);
    const viaSecond = postgres(attached.url, { max: 1 });
    assert.is((await viaSecond`select 1 as one`)[0]?.one, 1);
    await viaSecond.end();
    await attached.stop();
    const viaFirst = postgres(first.url, { max: 1 });
    assert.is((await viaFirst`select 2 as two`)[0]?.two, 2, 'the first server still serves after the second stops');
    await viaFirst.end();
  } finally {
    await first.stop();
  }
  await assertNothingLeft(dir);
});

test('a persistent cluster is reused with its password on the next start', async () => {
  const dir = join(openDir(), 'pg');
  const first = capturingLogger();
  await (await startEmbeddedPostgres({ dir, log: first.log })).stop();
  assert.ok(first.messages().includes('creating the embedded PostgreSQL cluster'));
  const second = capturingLogger();
  const db = await startEmbeddedPostgres({ dir, log: second.log });
  try {
    assert.not.ok(second.messages().includes('creating the embedded PostgreSQL cluster'));
    const sql = postgres(db.url, { max: 1 });
    assert.is((await sql`select 1 as one`)[0]?.one, 1);
    await sql.end();
  } finally {
    await db.stop();
  }
  await assertNothingLeft(dir);
});

for (const when of ['creating the embedded PostgreSQL cluster', 'embedded PostgreSQL started'] as const) {
  test(`aborting the start stops everything it started: abort after "${when}"`, async () => {
    // A data folder that does not exist yet: an interrupted first start removes it again.
    const dataDir = join(openDir(), 'data');
    const dir = join(dataDir, 'pg');
    const controller = new AbortController();
    const log = createLogger({}, {
      level: 'info',
      write: (line) => {
        if (JSON.parse(line).msg === when) controller.abort();
      },
    });
    let outcome: unknown;
    try {
      const db = await startEmbeddedPostgres({ dir, log, signal: controller.signal });
      // Aborted after it had fully started: the caller owns it and stops it.
      outcome = 'started';
      await db.stop();
    } catch (error) {
      outcome = error;
    }
    if (when === 'creating the embedded PostgreSQL cluster') {
      assert.instance(outcome, StartAborted);
      assert.not.ok(existsSync(dataDir), 'an interrupted first start leaves no cluster, not even its empty folder');
    } else {
      assert.is(outcome, 'started');
    }
    await assertNothingLeft(dir);
  });
}

function walk(dir: string, visit: (path: string) => void): void {
  visit(dir);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (lstatSync(path).isDirectory()) walk(path, visit);
    else visit(path);
  }
}

/** The real native tree copied below a folder only its owner may enter (like /root). */
function nativeBelowPrivateFolder(): { native: string; version: string } {
  const hidden = mkdtempSync(join(tmpdir(), 'lw-epg-private-'));
  made.push(hidden);
  const native = join(hidden, 'checkout with spaces', 'native');
  cpSync(runnable, native, { recursive: true, verbatimSymlinks: true });
  rmSync(join(native, '.complete'), { force: true });
  return { native, version: 'test' };
}

test('binaries the PostgreSQL user cannot reach run from a copy closed to others, made once and reused', async () => {
  const binaries = nativeBelowPrivateFolder();
  const copyBase = openDir('lw-epg-copies-');
  const first = capturingLogger();
  const db = await startEmbeddedPostgres({ dir: join(openDir(), 'pg'), log: first.log, native: binaries, copyBase, ephemeral: true });
  try {
    const sql = postgres(db.url, { max: 1 });
    assert.is((await sql`select 1 as one`)[0]?.one, 1);
    await sql.end();
  } finally {
    await db.stop();
  }
  if (!isRoot()) {
    // PostgreSQL runs as this user, who can reach its own checkout.
    assert.is(db.binaries, binaries.native);
    assert.equal(readdirSync(copyBase), []);
    return;
  }
  assert.ok(db.binaries.startsWith(join(copyBase, 'launcher-web-pg-bin-test-')), db.binaries);
  const copied = first.lines.find((line) => String(line.msg).startsWith('copied the embedded PostgreSQL binaries'));
  assert.is(copied?.dir, db.binaries, 'the log says where');
  walk(db.binaries, (path) => {
    const stat = lstatSync(path);
    assert.is(stat.uid, 0, `${path} is owned by root`);
    if (!stat.isSymbolicLink()) assert.is(stat.mode & 0o022, 0, `${path} is writable by others`);
  });
  assert.ok(existsSync(join(db.binaries, '.complete')));
  assert.equal(readdirSync(copyBase), [db.binaries.slice(copyBase.length + 1)], 'no half-made copy is left');

  const second = capturingLogger();
  const again = await startEmbeddedPostgres({ dir: join(openDir(), 'pg'), log: second.log, native: binaries, copyBase, ephemeral: true });
  await again.stop();
  assert.is(again.binaries, db.binaries);
  assert.ok(second.messages().some((msg) => msg.startsWith('running the embedded PostgreSQL binaries from a copy')), 'reused');
  assert.not.ok(second.messages().some((msg) => msg.startsWith('copied')), 'not copied again');

  // A copy that others could have changed is never run.
  chmodSync(db.binaries, 0o777);
  await expectFailure({ dir: join(openDir(), 'pg'), log: capturingLogger().log, native: binaries, copyBase, ephemeral: true }, /cannot be trusted: remove it/);
});

test('two processes copying the binaries at once both run one complete copy', async () => {
  if (!isRoot()) return;
  const binaries = nativeBelowPrivateFolder();
  const copyBase = openDir('lw-epg-copies-');
  const modules = (path: string) => pathToFileURL(fileURLToPath(new URL(path, import.meta.url))).href;
  const script = `
    const { reachableBinaries } = await import(${JSON.stringify(modules('../../src/db/embedded/binaries.js'))});
    const { postgresRunAs } = await import(${JSON.stringify(modules('../../src/db/embedded/run-as.js'))});
    const { silentLogger } = await import(${JSON.stringify(modules('../../src/lib/log.js'))});
    const found = reachableBinaries(${JSON.stringify(binaries.native)}, 'test', postgresRunAs(silentLogger), silentLogger, ${JSON.stringify(copyBase)});
    process.stdout.write(found.dir);`;
  const run = () =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk) => (out += chunk));
      child.on('close', (code) => resolve({ code, out }));
    });
  const [a, b] = await Promise.all([run(), run()]);
  assert.is(a.code, 0);
  assert.is(b.code, 0);
  assert.is(a.out, b.out);
  assert.equal(readdirSync(copyBase), [a.out.slice(copyBase.length + 1)], 'one copy, no half-made one left');
  assert.ok(existsSync(join(a.out, '.complete')));
  assert.equal(processesMentioning(copyBase), []);
});

test.run();
