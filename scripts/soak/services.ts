// The processes of the soak, each as operators run it: PostgreSQL (an embedded
// cluster, stopped and started again on the same port and folder), the built site
// and image host (`node dist/...`, stdout to a log file), the proxies and the
// S3-protocol server. Each is a Service whose pid is read for RSS every sample.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Logger } from '../../src/lib/log.js';
import { projectRoot } from '../../src/lib/project-root.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.js';

export const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 15_000;
const root = projectRoot();

export interface Service {
  /** Its role in the soak: site-1, imghost-2, postgres... */
  name: string;
  origin: string;
  /** The current process (it changes when the service is started again). */
  pid(): number | undefined;
  start(): Promise<void>;
  /** SIGTERM (or, with kill, SIGKILL) and wait for the exit. */
  stop(kill?: boolean): Promise<void>;
}

/** VmRSS of a process in bytes, from /proc; 0 when it is gone. */
export function rssOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

function waitExit(child: ChildProcess, kill: boolean): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(kill ? 'SIGKILL' : 'SIGTERM');
  });
}

async function waitAnswer(url: string, child: ChildProcess, name: string, logFile: string): Promise<void> {
  const until = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} at start (log: ${logFile})`);
    const ok = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      async (res) => (await res.arrayBuffer(), res.status < 500),
      () => false,
    );
    if (ok) return;
    if (Date.now() > until) throw new Error(`${name} did not answer ${url} within ${START_TIMEOUT_MS / 1000} s (log: ${logFile})`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/** A node process started again on the same port whenever asked; readyPath answering < 500 means it serves. */
export function nodeService(options: {
  name: string;
  script: string;
  args?: string[];
  env: Record<string, string>;
  port: number;
  cwd: string;
  logDir: string;
  readyPath: string;
}): Service {
  let child: ChildProcess | undefined;
  const origin = `http://${HOST}:${options.port}`;
  const logFile = join(options.logDir, `${options.name}.log`);
  return {
    name: options.name,
    origin,
    pid: () => (child && child.exitCode === null && child.signalCode === null ? child.pid : undefined),
    async start() {
      const out = openSync(logFile, 'a');
      child = spawn(process.execPath, [options.script, ...(options.args ?? [])], {
        cwd: options.cwd, // no stray .env
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/',
          // SOAK_NODE_OPTIONS reaches the services (not the soak itself): a heap snapshot on a signal, a profile.
          ...(process.env.SOAK_NODE_OPTIONS ? { NODE_OPTIONS: process.env.SOAK_NODE_OPTIONS } : {}),
          ...options.env,
        },
        stdio: ['ignore', out, out],
      });
      closeSync(out);
      await waitAnswer(origin + options.readyPath, child, options.name, logFile);
    },
    stop: async (kill = false) => {
      if (child) await waitExit(child, kill);
    },
  };
}

export function siteScript(): string {
  return join(root, 'dist', 'site.js');
}

export function imghostScript(): string {
  return join(root, 'dist', 'imghost.js');
}

/** The built proxy (scripts/soak/proxy.ts) of this checkout. */
export function proxyScript(): string {
  return join(root, '.test-build', 'scripts', 'soak', 'proxy.js');
}

/** The embedded PostgreSQL, durable, on a fixed port so that the services' DATABASE_URL holds across restarts. */
export function postgresService(dir: string, port: number, log: Logger): Service & { url(): string } {
  let database: EmbeddedDatabase | undefined;
  let url = '';
  return {
    name: 'postgres',
    origin: `postgres://${HOST}:${port}`,
    url: () => url,
    pid() {
      try {
        // postmaster.pid's first line; the postmaster alone (its backends come and go with connections).
        return database ? Number(readFileSync(join(database.dir, 'postmaster.pid'), 'utf8').split('\n')[0]) : undefined;
      } catch {
        return undefined;
      }
    },
    async start() {
      database = await startEmbeddedPostgres({ dir, log, port });
      url = database.url;
    },
    async stop() {
      await database?.stop();
      database = undefined;
    },
  };
}

/**
 * Why the soak cannot put the image hosts on a bucket, or null when it can: the
 * S3-protocol server (s3rver) must be installed and the built image host must
 * read STORAGE_URL.
 */
export function bucketUnavailable(): string | null {
  try {
    createRequire(join(root, 'package.json')).resolve('s3rver');
  } catch {
    return 's3rver is not installed';
  }
  if (!distMentions(join(root, 'dist', 'imghost'), 'STORAGE_URL') && !distMentions(join(root, 'dist', 'settings'), 'STORAGE_URL')) {
    return 'the built image host does not read STORAGE_URL';
  }
  return null;
}

function distMentions(dir: string, text: string): boolean {
  if (!existsSync(dir)) return false;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() ? distMentions(path, text) : entry.name.endsWith('.js') && readFileSync(path, 'utf8').includes(text)) return true;
  }
  return false;
}

/** The soak's S3-protocol server (scripts/soak/s3rver-child.ts): same port and folder on every start. */
export function bucketService(options: { port: number; dir: string; bucket: string; logDir: string; cwd: string }): Service {
  return nodeService({
    name: 's3rver',
    script: join(root, '.test-build', 'scripts', 'soak', 's3rver-child.js'),
    args: [String(options.port), options.dir, options.bucket],
    env: {},
    port: options.port,
    cwd: options.cwd,
    logDir: options.logDir,
    // The list of buckets: listing the bucket itself answers 500 once a kill has left
    // a half-written object behind (s3rver writes objects in place, not renamed).
    readyPath: '/',
  });
}
