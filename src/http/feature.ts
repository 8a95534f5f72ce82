import type { IncomingMessage } from 'node:http';
import type { Middleware, Route } from './context.js';
import type { Sample } from './metrics/exposition.js';

/**
 * A slice of a service: its routes, any middleware it needs on every request, and
 * what to release at shutdown (watchers, timers). A service is a list of these.
 */
export interface Feature<L extends object> {
  routes: Route<L>[];
  middleware?: Middleware<L>[];
  close?(): void | Promise<void>;
  /**
   * `Expect: 100-continue` (server.ts): false when this feature would refuse the
   * request before reading its body, so no 100 invites the client to send it.
   */
  checkContinue?(req: IncomingMessage): boolean;
  /** What this feature reports on /metrics (queue depths, its own counters), read at scrape time. */
  metrics?(): Sample[] | Promise<Sample[]>;
}
