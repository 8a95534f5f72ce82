import type { ImghostSettings } from './settings.js';
import type { Context, Handler, Route } from '../../http/context.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/log.js';

export type ImghostLocals = Record<string, never>;
export type ImghostContext = Context<ImghostLocals>;
export type ImghostRoute = Route<ImghostLocals>;
export type ImghostHandler = Handler<ImghostLocals>;

export interface ImghostDeps {
  config: ImghostSettings;
  log: Logger;
  /**
   * Wall time, ms (uploads' timestamps, how long the bucket's readiness is
   * believed), for tests that move it; production runs Date.now().
   */
  now?: Clock;
}
