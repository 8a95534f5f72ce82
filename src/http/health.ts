import type { Handler } from './context.js';
import { sendJson } from './answer/index.js';

/** GET /healthz: the process serves. GET /readyz: its dependencies work too. */
export function healthHandlers(isReady: () => Promise<boolean>): { live: Handler<any>; ready: Handler<any> } {
  return {
    live: (ctx) => sendJson(ctx, 200, { status: 'ok' }, { 'Cache-Control': 'no-store' }),
    ready: async (ctx) => {
      const ready = await isReady();
      sendJson(ctx, ready ? 200 : 503, { status: ready ? 'ready' : 'unavailable' }, { 'Cache-Control': 'no-store' });
    },
  };
}
