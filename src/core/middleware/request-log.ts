import type { Middleware } from '../context.js';

/**
 * One JSON line per request once the answer is finished (or the client went away).
 * The query string is left out on purpose: it carries OAuth codes and states.
 */
export function requestLog(): Middleware<any> {
  return (ctx, next) => {
    const started = process.hrtime.bigint();
    // Read now: once the answer is done the socket may be gone.
    const ip = ctx.ip;
    let logged = false;
    const done = () => {
      if (logged) return;
      logged = true;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      ctx.log.info('request', {
        method: ctx.method,
        path: ctx.path.length > 256 ? ctx.path.slice(0, 256) + '…' : ctx.path,
        status: ctx.res.statusCode,
        ms: Math.round(ms * 100) / 100,
        bytes: Number(ctx.res.getHeader('content-length') ?? 0) || undefined,
        ip,
        aborted: ctx.res.writableFinished ? undefined : true,
      });
    };
    // A server response always emits 'close': after 'finish', or when the client
    // went away first (then writableFinished is false).
    ctx.res.once('close', done);
    return next();
  };
}
