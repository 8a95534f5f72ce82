import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type Env } from './settings/env.js';
import { loadSharedSettings, type SharedSettings } from './settings/shared.js';
import { loadImghostSettings, type ImghostSettings } from './services/imghost/settings.js';
import { loadSiteSettings, type SiteSettings } from './services/site/settings.js';
import { loadDotenv } from './lib/dotenv.js';
import { createLogger, type Logger } from './lib/log.js';
import { projectRoot } from './lib/project-root.js';
import { listen, type RunningServer } from './http/server.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
import { StartAborted } from './db/embedded/errors.js';
import { migrate } from './db/migrate.js';
import { createPool, waitForDatabase, type Sql } from './db/pool.js';
import { createImghost } from './services/imghost/app.js';
import { createSite } from './services/site/app.js';

// Start-up shared by the entrypoints. Each step that can fail for a reason the
// operator must fix ends the process with one line that says which (src/lifecycle.ts).

export interface ReadConfigOptions {
  /** `npm start`: without LAUNCHER_CONFIG (environment or .env) and config/launcher.json, serve the example. */
  exampleLauncherConfig?: boolean;
}

/** Both services' settings, for an entrypoint or a test that may start either. */
export type Settings = SiteSettings & ImghostSettings;

export function loadSettings(env: Env): Settings {
  const shared = loadSharedSettings(env);
  return { ...loadSiteSettings(env, shared), ...loadImghostSettings(env, shared) };
}

export function readConfigOrExit(options: ReadConfigOptions = {}): Settings {
  // First: .env may set anything read below, LAUNCHER_CONFIG included.
  loadDotenv(join(process.cwd(), '.env'));
  if (options.exampleLauncherConfig && !process.env.LAUNCHER_CONFIG && !existsSync(join(process.cwd(), 'config', 'launcher.json'))) {
    process.env.LAUNCHER_CONFIG = join(projectRoot(), 'config', 'launcher.example.json');
  }
  try {
    return loadSettings(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

export interface Database {
  sql: Sql;
  embedded: EmbeddedDatabase | undefined;
  close(): Promise<void>;
}

/**
 * DATABASE_URL, or the embedded PostgreSQL under $DATA_DIR/pg; waits, migrates.
 * Aborting `signal` stops what has started (the pool, the embedded PostgreSQL)
 * and rejects with StartAborted.
 */
export async function openDatabase(config: SharedSettings, log: Logger, signal?: AbortSignal): Promise<Database> {
  let embedded: EmbeddedDatabase | undefined;
  let url = config.databaseUrl;
  if (!url) {
    log.warn('DATABASE_URL is unset: using an embedded PostgreSQL (fine for trying it out, not for production)');
    embedded = await startEmbeddedPostgres({ dir: join(config.dataDir, 'pg'), log, signal });
    url = embedded.url;
  }
  const sql = createPool(url, {
    onBreaker: (down) => (down ? log.warn('PostgreSQL is unreachable: serving kept answers, refusing the rest with 503') : log.info('PostgreSQL answers again')),
  });
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      try {
        await sql.end({ timeout: 5 });
      } finally {
        await embedded?.stop();
      }
    })());
  // Ending the pool makes a migration in flight fail (and roll back) at once.
  const stopOnAbort = () => void close().catch(() => {});
  signal?.addEventListener('abort', stopOnAbort, { once: true });
  try {
    if (signal?.aborted) throw new StartAborted();
    await waitForDatabase(sql, log, undefined, signal);
    await migrate(sql, log);
  } catch (error) {
    await close().catch(() => {});
    throw signal?.aborted ? new StartAborted() : error;
  } finally {
    signal?.removeEventListener('abort', stopOnAbort);
  }
  return { sql, embedded, close };
}

export interface Service {
  name: string;
  server: RunningServer;
  close(): Promise<void>;
}

export async function startSiteService(config: SiteSettings, log: Logger, sql: Sql): Promise<Service> {
  const site = createSite({ config, sql, log });
  const server = await listen(site.handler, config.host, config.sitePort);
  return {
    name: 'site',
    server,
    close: async () => {
      await server.close();
      await site.close();
    },
  };
}

export async function startImghostService(config: ImghostSettings, log: Logger): Promise<Service> {
  const imghost = await createImghost({ config, log });
  const server = await listen(imghost.handler, config.host, config.imghostPort);
  return {
    name: 'imghost',
    server,
    close: async () => {
      await server.close();
      await imghost.close();
    },
  };
}

export function createRootLogger(config: SharedSettings): Logger {
  return createLogger({ pid: process.pid }, { level: config.logLevel });
}
