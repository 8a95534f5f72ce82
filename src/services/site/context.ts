import type { SiteSettings } from './settings.js';
import type { Context, Handler, Middleware, Route } from '../../http/context.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/log.js';
import type { Sql } from '../../db/pool.js';
import type { WebhookWorkerOptions } from './webhooks/delivery-worker.js';
import type { PackageCheckOptions } from './store/package-checks/feature.js';

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
