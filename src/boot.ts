import { join } from 'node:path';
import { ConfigError, loadConfig, type Config } from './core/config.js';
import { loadDotenv } from './core/dotenv.js';
import { createLogger, type Logger } from './core/log.js';
import { listen, type RunningServer } from './core/server.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import { createPool, waitForDatabase, type Sql } from './db/pool.js';
import { createImghost } from './imghost/app.js';
import { createSite } from './site/app.js';

// Start-up shared by the entrypoints. Each step that can fail for a reason the
// operator must fix ends the process with one line that says which.

export function readConfigOrExit(): Config {
  loadDotenv(join(process.cwd(), '.env'));
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

export function fatal(log: Logger, message: string, error?: unknown): never {
  log.error(message, { err: error });
  process.stderr.write(`${message}${error instanceof Error ? ': ' + error.message : ''}\n`);
  process.exit(1);
}

export interface Database {
  sql: Sql;
  embedded: EmbeddedDatabase | undefined;
  close(): Promise<void>;
}

/** DATABASE_URL, or the embedded PostgreSQL under $DATA_DIR/pg; waits, migrates. */
export async function openDatabase(config: Config, log: Logger): Promise<Database> {
  let embedded: EmbeddedDatabase | undefined;
  let url = config.databaseUrl;
  if (!url) {
    log.warn('DATABASE_URL is unset: using an embedded PostgreSQL (fine for trying it out, not for production)');
    embedded = await startEmbeddedPostgres({ dir: join(config.dataDir, 'pg'), log });
    url = embedded.url;
  }
  const sql = createPool(url);
  const close = async () => {
    await sql.end({ timeout: 5 });
    await embedded?.stop();
  };
  try {
    await waitForDatabase(sql, log);
    await migrate(sql, log);
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
  return { sql, embedded, close };
}

export interface Service {
  name: string;
  server: RunningServer;
  close(): Promise<void>;
}

export async function startSiteService(config: Config, log: Logger, sql: Sql): Promise<Service> {
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

export async function startImghostService(config: Config, log: Logger): Promise<Service> {
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

export function createRootLogger(config: Config): Logger {
  return createLogger({ pid: process.pid }, { level: config.logLevel });
}
