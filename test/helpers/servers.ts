// Real servers on random ports, for tests. Each test file gets its own database
// (TEST_DB_URL, made by test/run.ts) and its own temporary data folder.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings, type Settings } from '../../src/boot.js';
import { createLogger, silentLogger, type Logger } from '../../src/lib/log.js';
import { listen, type RunningServer } from '../../src/http/server.js';
import { createPool, lastConnectionCloseOf, type Sql } from '../../src/db/pool.js';
import { databaseAddressOf, strayRejectionHandler } from '../../src/db/stray-rejections.js';
import { createImghost } from '../../src/services/imghost/app.js';
import { createSite } from '../../src/services/site/app.js';
import type { Clock } from '../../src/lib/clock.js';
import type { PackageCheckOptions, WebhookWorkerOptions } from '../../src/services/site/context.js';

export function testLogger(): Logger {
  return process.env.TEST_LOG ? createLogger({ test: true }) : silentLogger;
}

export function tempDir(prefix = 'lw-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A config as the services would read it, with test defaults and overrides. */
export function testConfig(overrides: Record<string, string | undefined> = {}): Settings {
  return loadSettings({
    HOST: '127.0.0.1',
    SITE_PORT: '0',
    IMGHOST_PORT: '0',
    DATA_DIR: tempDir(),
    PUBLIC_URL: 'http://site.test',
    LAUNCHER_CONFIG: join(tempDir(), 'launcher.json'),
    ...overrides,
  });
}

let sharedSql: Sql | undefined;
/** The pool on this file's database; closed by closeTestSql(). */
export function testSql(): Sql {
  const url = process.env.TEST_DB_URL;
  if (!url) throw new Error('TEST_DB_URL is unset: run tests through `npm test` (test/run.ts)');
  sharedSql ??= createPool(url);
  return sharedSql;
}

export async function closeTestSql(): Promise<void> {
  await sharedSql?.end({ timeout: 2 });
  sharedSql = undefined;
}

export interface TestServer {
  url: string;
  config: Settings;
  server: RunningServer;
  close(): Promise<void>;
}

/** Listens on a random port; closing stops the server, then the service. */
async function serveForTest(config: Settings, service: { handler: Parameters<typeof listen>[0]; close(): Promise<void> }): Promise<TestServer> {
  const server = await listen(service.handler, '127.0.0.1', 0);
  return {
    url: server.url,
    config,
    server,
    close: async () => {
      await server.close(1000);
      await service.close();
    },
  };
}

/**
 * `webhooks`: the site's webhook worker options (a test's clock and dispatcher, or
 * start: false); `now`: the site's clock for durations (test/helpers/time.ts);
 * `packageChecks`: its package checks' options (issue 33): unless given, they do
 * not run, so no test's outside links are fetched behind its back.
 */
export function startTestSite(
  overrides: Record<string, string | undefined> = {},
  sql: Sql = testSql(),
  webhooks?: WebhookWorkerOptions,
  now?: Clock,
  packageChecks: PackageCheckOptions = { start: false },
): Promise<TestServer> {
  const config = testConfig(overrides);
  surviveStrayFailuresOf(sql);
  return serveForTest(config, createSite({ config, sql, log: testLogger(), webhooks, now, packageChecks }));
}

/** The stray-rejection handler of each database address a test site used, by address. */
const strayHandlers = new Map<string, (reason: unknown) => void>();

/**
 * A site in the test process survives what postgres.js leaves unhandled when its
 * database goes away (the LISTEN connection's reconnects), as `node dist/site.js`
 * does (src/site.ts, db/stray-rejections.ts). Without it, a test that cuts the
 * database under a site (database-outage) ended the whole test process on such an
 * ECONNREFUSED, now and then under a loaded machine.
 *
 * A production process has one pool, so one handler. A test process may have
 * several (a proxy per test): one process handler asks each pool's in turn and
 * rethrows only what none forgives. With a handler per pool, the first one's
 * rethrew the second pool's ECONNREFUSED and ended the process (query-deadline,
 * 2 runs in 12).
 */
function surviveStrayFailuresOf(sql: Sql): void {
  const address = databaseAddressOf(sql);
  const key = JSON.stringify(address);
  if (strayHandlers.has(key)) return;
  strayHandlers.set(key, strayRejectionHandler(testLogger(), address, () => lastConnectionCloseOf(sql)));
  if (strayHandlers.size > 1) return;
  process.on('unhandledRejection', (reason) => {
    for (const forgive of strayHandlers.values()) {
      try {
        forgive(reason);
        return;
      } catch {
        // Not this pool's: the next may know it.
      }
    }
    throw reason;
  });
}

/** `now`: the image host's wall clock (test/helpers/time.ts). */
export async function startTestImghost(overrides: Record<string, string | undefined> = {}, now?: Clock): Promise<TestServer> {
  const config = testConfig(overrides);
  return serveForTest(config, await createImghost({ config, log: testLogger(), now }));
}
