import type { Context, Handler, Middleware } from './context.js';

/**
 * What a step that returned nothing (it finished at once) becomes: one promise,
 * settled once and shared, instead of a new one per step and request. A caller
 * that gets it back knows the chain ended without waiting and cannot fail.
 */
export const DONE: Promise<void> = Promise.resolve();

/**
 * Runs middleware in order, each deciding whether to call `next`, then the handler.
 * Calling `next` twice is a programming error and fails loudly instead of running
 * the handler a second time.
 *
 * Not an async function on purpose: every request walks this chain, and wrapping
 * each step in a fresh promise (and a microtask) costs more than the middleware
 * itself. Promise.resolve returns a promise it is given unchanged.
 */
export function compose<L extends object>(middleware: Middleware<L>[], handler: Handler<L>): (ctx: Context<L>) => Promise<void> {
  // A route without middleware (a launcher's GET) runs its handler alone: no
  // dispatch function made per request.
  if (middleware.length === 0) {
    return function runHandler(ctx: Context<L>): Promise<void> {
      try {
        const step = handler(ctx);
        return step === undefined ? DONE : (Promise.resolve(step) as unknown as Promise<void>);
      } catch (error) {
        return Promise.reject(error);
      }
    };
  }
  return function run(ctx: Context<L>): Promise<void> {
    let last = -1;
    const dispatch = (index: number): Promise<void> => {
      if (index <= last) return Promise.reject(new Error('next() called more than once'));
      last = index;
      try {
        const step = index === middleware.length ? handler(ctx) : middleware[index]!(ctx, () => dispatch(index + 1));
        return step === undefined ? DONE : (Promise.resolve(step) as unknown as Promise<void>);
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return dispatch(0);
  };
}
