// Start-up and shutdown of an entrypoint. The signal handlers are installed before
// anything starts, so SIGINT or SIGTERM at any moment of start-up stops what has
// started so far (the embedded PostgreSQL above all) and exits, instead of the
// default action killing this process and orphaning PostgreSQL.
import { ConfigError } from './settings/env.js';
import type { Logger } from './lib/log.js';
import { onShutdownSignal } from './http/server.js';
import { EmbeddedPostgresError } from './db/embedded.js';
import { MigrationChainError } from './db/pre-release-chain.js';

export interface Closable {
  close(): Promise<void>;
}

export interface Lifecycle {
  /** Aborted when a shutdown signal arrives. */
  signal: AbortSignal;
  /**
   * One start-up step. What it returns is closed at shutdown, after what later
   * steps return. A failure closes what has started, then exits 1 with one line
   * (`failure: why`); a step interrupted by a signal is left to the shutdown.
   */
  step<T extends Closable>(failure: string, start: (signal: AbortSignal) => Promise<T>): Promise<T>;
}

export interface LifecycleOptions {
  /** Exit status after a signal: 0 for services; a command cut short says so (130). */
  exitCodeOnSignal?: number;
}

export function startLifecycle(log: Logger, options: LifecycleOptions = {}): Lifecycle {
  const controller = new AbortController();
  const started: Closable[] = [];
  let inProgress: Promise<unknown> = Promise.resolve();
  const closeAll = async () => {
    for (const resource of started.splice(0).reverse()) await resource.close();
  };
  onShutdownSignal(log, async () => {
    controller.abort();
    await inProgress.catch(() => {});
    await closeAll();
  }, options.exitCodeOnSignal);
  return {
    signal: controller.signal,
    async step(failure, start) {
      const running = (async () => start(controller.signal))().then((resource) => {
        started.push(resource);
        return resource;
      });
      inProgress = running;
      try {
        const resource = await running;
        return controller.signal.aborted ? untilShutdownExits() : resource;
      } catch (error) {
        if (controller.signal.aborted) return untilShutdownExits();
        await closeAll().catch((closeError: unknown) => log.error('could not stop what had started', { err: closeError }));
        return fatal(log, failure, error);
      }
    },
  };
}

/** The shutdown handler is closing everything and will exit: start-up goes no further. */
function untilShutdownExits(): Promise<never> {
  return new Promise(() => {});
}

/**
 * Ends the process with exit status 1 and one line on stderr. Failures the
 * operator can fix (configuration, the embedded PostgreSQL, a database migrated by
 * another chain) are logged without a
 * stack trace: the line says what to do.
 */
export function fatal(log: Logger, message: string, error?: unknown): never {
  const reason = error instanceof Error ? error.message.replace(/\s*\n\s*/g, ' ') : error === undefined ? '' : String(error);
  const explained = error instanceof EmbeddedPostgresError || error instanceof ConfigError || error instanceof MigrationChainError;
  log.error(message, explained ? { reason } : { err: error });
  process.stderr.write(`${message}${reason ? ': ' + reason : ''}\n`);
  process.exit(1);
}
