import type { Route } from './context.js';
import { sendJson } from './respond.js';

/** /healthz: the process serves. /readyz: its dependencies work too. */
export function healthRoutes(isReady: () => Promise<boolean>): Route<any>[] {
  return [
    {
      method: 'GET',
      path: '/healthz',
      handler: (ctx) => sendJson(ctx, 200, { status: 'ok' }, { 'Cache-Control': 'no-store' }),
    },
    {
      method: 'GET',
      path: '/readyz',
      handler: async (ctx) => {
        const ready = await isReady();
        sendJson(ctx, ready ? 200 : 503, { status: ready ? 'ready' : 'unavailable' }, { 'Cache-Control': 'no-store' });
      },
    },
  ];
}
