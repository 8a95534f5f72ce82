import type { Middleware } from '../context.js';

const MAX_LOGGED_PATH = 256;

/**
 * One JSON line per request once the answer is finished (or the client went away).
 * The query string is left out on purpose: it carries OAuth codes and states.
 *
 * This runs for every request, so the line is built here directly rather than
 * through an object and JSON.stringify. Only the path can hold arbitrary text and
 * is escaped; the request id (validated or generated), the method (Node's parser
 * accepts only known methods) and the address (from the socket, or validated from
 * X-Forwarded-For) cannot hold a quote or a backslash.
 */
export function requestLog(): Middleware<any> {
  return (ctx, next) => {
    // Under LOG_LEVEL=warn or error the line would be dropped: do not time or watch for it.
    if (!ctx.serviceLog.enabled('info')) return next();
    // performance.now() is a plain number; hrtime.bigint() made a BigInt twice a request.
    const started = performance.now();
    // Read now: once the answer is done the socket may be gone.
    const ip = ctx.ip;
    // A server response always emits 'close', exactly once: after 'finish', or when
    // the client went away first (then writableFinished is false). `on`, not `once`:
    // once() wraps the listener in a second function on every request for nothing.
    ctx.res.on('close', () => {
      const ms = Math.round((performance.now() - started) * 100) / 100;
      const res = ctx.res;
      const path = ctx.path.length > MAX_LOGGED_PATH ? ctx.path.slice(0, MAX_LOGGED_PATH) + '…' : ctx.path;
      const bytes = ctx.contentLength ?? 0;
      ctx.serviceLog.raw(
        'info',
        'request',
        `"requestId":"${ctx.id}","method":"${ctx.method}","path":${JSON.stringify(path)},"status":${res.statusCode},"ms":${ms}` +
          `${bytes ? `,"bytes":${bytes}` : ''},"ip":"${ip}"${res.writableFinished ? '' : ',"aborted":true'}`,
      );
    });
    return next();
  };
}
