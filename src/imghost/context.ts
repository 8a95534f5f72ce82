import type { Config } from '../core/config.js';
import type { Context, Handler, Route } from '../core/context.js';
import type { Logger } from '../core/log.js';

export type ImghostLocals = Record<string, never>;
export type ImghostContext = Context<ImghostLocals>;
export type ImghostRoute = Route<ImghostLocals>;
export type ImghostHandler = Handler<ImghostLocals>;

export interface ImghostDeps {
  config: Config;
  log: Logger;
}
