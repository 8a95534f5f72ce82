import type { SiteSettings } from './settings.js';
import type { Context, Handler, Middleware, Route } from '../../http/context.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/log.js';
import type { Sql } from '../../db/pool.js';
import type { Dispatcher } from 'undici';
import type { OutboundSettings } from './outbound/proxy-settings.js';

/** Who asks: a logged-in user, or a visitor (null). */
export type Viewer = SessionUser | null;

export interface SessionUser {
  id: string;
  username: string;
  avatar: string;
  admin: boolean;
}

/** What a request's guards resolved (src/services/site/auth/guards.ts). */
export interface SiteLocals {
  /** The logged-in user, once a guard in the route's `use` resolved the session; else null. */
  user: SessionUser | null;
  /**
   * Set when the caller authenticated with a personal API token (Authorization:
   * Bearer) instead of the session cookie; `user` is then the token's owner.
   */
  apiToken?: { id: string; scopes: readonly string[] };
}

export type SiteContext = Context<SiteLocals>;
export type SiteRoute = Route<SiteLocals>;
export type SiteHandler = Handler<SiteLocals>;
export type SiteMiddleware = Middleware<SiteLocals>;

export interface SiteDeps {
  config: SiteSettings;
  sql: Sql;
  log: Logger;
  /**
   * The webhook worker's clock and dispatcher, for tests; never set from
   * configuration (src/boot.ts does not), so production runs the real ones.
   */
  webhooks?: WebhookWorkerOptions;
  /**
   * The process's clock for durations (monotonic ms: how long a kept session lookup
   * stays usable), for tests that move it; production runs performance.now().
   */
  now?: Clock;
  /** The package checks' time limit and workers, for tests; likewise never from configuration. */
  packageChecks?: PackageCheckOptions;
}

// The options of the site's two workers, for tests; here, below the features, as
// SiteDeps carries them (webhooks/delivery-worker.ts, store/package-checks/feature.ts).

export interface WebhookWorkerOptions {
  /** Now, in milliseconds; wall time unless a test moves time itself. */
  clock?: Clock;
  /** Where deliveries go through; createDeliveryDispatcher({ports}) unless given (then not closed by stop). */
  dispatcher?: Dispatcher;
  /** The ports the dispatcher made here allows (the site passes SiteSettings.webhookPorts); 443 and 8443 unless given. */
  ports?: readonly number[];
  /** The proxies and trusted roots the dispatcher made here uses (the site passes SiteSettings.outbound); none unless given. */
  outbound?: OutboundSettings;
  pollIntervalMs?: number;
  concurrency?: number;
  /** False: the site does not start its worker (a test drives one of its own). */
  start?: boolean;
}

/** For tests: never set from configuration (src/boot.ts does not), so production runs the real ones. */
export interface PackageCheckOptions {
  /** The time limit of one check; CHECK_TIME_LIMIT_MS unless a test shortens it. */
  timeoutMs?: number;
  pollIntervalMs?: number;
  scheduleIntervalMs?: number;
  /** False: no worker or schedule runs (a test drives them). */
  start?: boolean;
  /** The address policy (tests' files are on 127.0.0.1 when not proxied). */
  addressAllowed?: (address: string) => boolean;
  resolve?: (hostname: string) => Promise<string[]>;
}
