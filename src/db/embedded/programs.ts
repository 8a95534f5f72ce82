import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Logger } from '../../lib/log.js';
import { describeSystemError, EmbeddedPostgresError, StartAborted } from './errors.js';
import type { RunAs } from './run-as.js';

// initdb and postgres as child processes. Each runs in a session of its own, so a
// Ctrl-C in the terminal reaches only us and we stop PostgreSQL after the servers
// have drained; a process exit we did not plan for still stops it (see launch()).

const READY_LINE = 'database system is ready to accept connections';
export const START_TIMEOUT_MS = 60_000;
/** Fast shutdown (SIGINT) gets this long before the immediate one (SIGQUIT). */
const STOP_GRACE_MS = 10_000;
const KEPT_OUTPUT_LINES = 200;
// The lines above are matched in PostgreSQL's own (English) wording.
const ENVIRONMENT = { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' };

interface Program {
  child: ChildProcess;
  /** The last lines it printed, for saying why it failed. */
  lines: string[];
  exited: Promise<void>;
  hasExited(): boolean;
  spawnError(): Error | undefined;
  onLine(listener: (line: string) => void): void;
}

/**
 * Spawns a PostgreSQL program as `runAs`, logging its output at debug level.
 * Should this process exit with the program still running (an uncaught error,
 * process.exit on a failed start), `lastWish` is sent to it on the way out: the
 * postmaster shuts down fast, initdb removes what it made.
 */
function launch(file: string, args: string[], runAs: RunAs | undefined, log: Logger, lastWish: NodeJS.Signals): Program {
  // (On Windows, detached would open a console window of its own.)
  const child = spawn(file, args, { ...runAs, env: ENVIRONMENT, detached: process.platform !== 'win32', stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const listeners: Array<(line: string) => void> = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop()!;
      for (const line of parts) {
        if (!line.trim()) continue;
        lines.push(line);
        if (lines.length > KEPT_OUTPUT_LINES) lines.shift();
        log.debug('postgres', { message: line });
        for (const listener of listeners) listener(line);
      }
    });
  }
  let spawnError: Error | undefined;
  let done = false;
  const stopOnExit = () => {
    if (!done && child.pid) {
      try {
        process.kill(child.pid, lastWish);
      } catch {
        // Already gone.
      }
    }
  };
  process.on('exit', stopOnExit);
  const exited = new Promise<void>((resolve) => {
    const finish = () => {
      done = true;
      process.off('exit', stopOnExit);
      resolve();
    };
    // 'exit' may or may not follow a spawn error, so either one ends it.
    child.on('error', (error) => {
      if (!child.pid) spawnError = error;
      finish();
    });
    child.once('exit', finish);
  });
  return {
    child,
    lines,
    exited,
    hasExited: () => done,
    spawnError: () => spawnError,
    onLine: (listener) => listeners.push(listener),
  };
}

function cannotSpawn(file: string, error: Error, todo: string): EmbeddedPostgresError {
  return new EmbeddedPostgresError(`the embedded PostgreSQL could not run ${file}: ${describeSystemError(error)}; ${todo}`);
}

export interface InitdbOptions {
  binDir: string;
  dataDir: string;
  passwordFile: string;
  runAs: RunAs | undefined;
  log: Logger;
  sync: boolean;
  signal?: AbortSignal;
  /** What to do when the program cannot be run at all. */
  spawnHint: string;
}

/** initdb into `dataDir` (an empty folder the PostgreSQL user owns). */
export async function runInitdb(options: InitdbOptions): Promise<void> {
  const file = join(options.binDir, 'bin', 'initdb');
  const program = launch(file, [
    `--pgdata=${options.dataDir}`,
    '--username=postgres',
    `--pwfile=${options.passwordFile}`,
    '--auth=scram-sha-256',
    '--encoding=UTF8',
    // The C locale: the same cluster whatever the environment's locale is.
    '--no-locale',
    ...(options.sync ? [] : ['--no-sync']),
  ], options.runAs, options.log, 'SIGTERM');
  const abort = () => program.child.kill('SIGTERM');
  if (options.signal?.aborted) abort();
  else options.signal?.addEventListener('abort', abort, { once: true });
  try {
    await program.exited;
  } finally {
    options.signal?.removeEventListener('abort', abort);
  }
  const spawnError = program.spawnError();
  if (spawnError) throw cannotSpawn(file, spawnError, options.spawnHint);
  if (options.signal?.aborted) throw new StartAborted();
  if (program.child.exitCode !== 0) {
    const why = program.lines.filter((line) => /error|could not|invalid|denied/i.test(line)).at(-1) ?? program.lines.at(-1) ?? `exit status ${program.child.exitCode}`;
    throw new EmbeddedPostgresError(`initdb could not create the embedded PostgreSQL cluster in ${options.dataDir}: ${why.trim()} (all of its output with LOG_LEVEL=debug)`);
  }
}

export interface PostmasterOptions {
  binDir: string;
  dataDir: string;
  port: number;
  runAs: RunAs | undefined;
  log: Logger;
  /** Throw-away clusters (tests) skip fsync. */
  durable: boolean;
  signal?: AbortSignal;
  spawnHint: string;
}

export interface Postmaster {
  pid: number;
  /** Fast shutdown; waits until PostgreSQL and its sessions are gone. */
  stop(): Promise<void>;
}

/** Starts postgres on 127.0.0.1:port and waits until it accepts connections. */
export async function startPostmaster(options: PostmasterOptions): Promise<Postmaster> {
  const file = join(options.binDir, 'bin', 'postgres');
  const program = launch(file, [
    '-D', options.dataDir,
    '-p', String(options.port),
    '-c', 'listen_addresses=127.0.0.1',
    '-c', 'unix_socket_directories=',
    '-c', 'lc_messages=C',
    ...(options.durable ? [] : ['-c', 'fsync=off']),
  ], options.runAs, options.log, 'SIGINT');
  const stop = () => stopProgram(program);

  let timer: NodeJS.Timeout | undefined;
  let abort: (() => void) | undefined;
  const outcome = await Promise.race([
    new Promise<'ready'>((resolve) => program.onLine((line) => line.includes(READY_LINE) && resolve('ready'))),
    program.exited.then(() => 'exited' as const),
    new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), START_TIMEOUT_MS))),
    new Promise<'aborted'>((resolve) => {
      abort = () => resolve('aborted');
      if (options.signal?.aborted) abort();
      else options.signal?.addEventListener('abort', abort, { once: true });
    }),
  ]);
  clearTimeout(timer);
  options.signal?.removeEventListener('abort', abort!);

  if (outcome === 'ready') return { pid: program.child.pid!, stop };
  await stop();
  const spawnError = program.spawnError();
  if (spawnError) throw cannotSpawn(file, spawnError, options.spawnHint);
  if (outcome === 'aborted') throw new StartAborted();
  const why = outcome === 'timeout' ? `it did not accept connections within ${START_TIMEOUT_MS / 1000} s` : whyItStopped(program.lines, options);
  throw new EmbeddedPostgresError(`the embedded PostgreSQL did not start (cluster in ${options.dataDir}): ${why}`);
}

async function stopProgram(program: Program): Promise<void> {
  if (program.hasExited()) return;
  for (const [signal, waitMs] of [['SIGINT', STOP_GRACE_MS], ['SIGQUIT', STOP_GRACE_MS], ['SIGKILL', STOP_GRACE_MS]] as const) {
    program.child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([program.exited, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    if (program.hasExited()) return;
  }
}

/** One line from PostgreSQL's own complaint, with what to do about the usual ones. */
function whyItStopped(lines: string[], options: PostmasterOptions): string {
  const output = lines.join('\n');
  if (/could not bind .*Address already in use/.test(output)) {
    return `port ${options.port} on 127.0.0.1 is already in use: start again (a free port is picked each time)`;
  }
  const other = /lock file "postmaster\.pid" already exists[\s\S]*?PID (\d+)/.exec(output);
  if (other) {
    return `another PostgreSQL (pid ${other[1]}) is running on this cluster: stop the other npm start or process that uses it (kill -INT ${other[1]}), then start again`;
  }
  const fatal = /(?:FATAL|PANIC):\s+(.*)/.exec(output)?.[1] ?? lines.at(-1) ?? 'it exited at once';
  return `${fatal.trim()} (all of its output with LOG_LEVEL=debug)`;
}
