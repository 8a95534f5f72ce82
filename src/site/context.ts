import type { Config } from '../core/config.js';
import type { Context, Handler, Middleware, Route } from '../core/context.js';
import type { Logger } from '../core/log.js';
import type { Sql } from '../db/pool.js';

export interface SessionUser {
  id: string;
  username: string;
  avatar: string;
  admin: boolean;
}

/** What the site's middleware resolves once per request. */
export interface SiteLocals {
  user: SessionUser | null;
  /** Id of the session row, when the request carries a valid session cookie. */
  sessionId: string | null;
}

export type SiteContext = Context<SiteLocals>;
export type SiteRoute = Route<SiteLocals>;
export type SiteHandler = Handler<SiteLocals>;
export type SiteMiddleware = Middleware<SiteLocals>;

export interface SiteDeps {
  config: Config;
  sql: Sql;
  log: Logger;
}
