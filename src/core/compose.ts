import type { Context, Handler, Middleware } from './context.js';

/**
 * Runs middleware in order, each deciding whether to call `next`, then the handler.
 * Calling `next` twice is a programming error and fails loudly instead of running
 * the handler a second time.
 */
export function compose<L extends object>(middleware: Middleware<L>[], handler: Handler<L>) {
  return function run(ctx: Context<L>): Promise<void> {
    let last = -1;
    const dispatch = async (index: number): Promise<void> => {
      if (index <= last) throw new Error('next() called more than once');
      last = index;
      if (index === middleware.length) {
        await handler(ctx);
        return;
      }
      await middleware[index]!(ctx, () => dispatch(index + 1));
    };
    return dispatch(0);
  };
}
