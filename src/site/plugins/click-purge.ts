import { runQuery } from '../../db/queries.js';
import type { SiteDeps } from '../context.js';

// A click row older than an hour no longer de-duplicates anything; the purge only
// keeps plugin_install_clicks small. Every process may run it; deletes are batched.

export const CLICK_PURGE_INTERVAL_MS = 10 * 60 * 1000;
export const CLICK_PURGE_BATCH = 5000;

export function startClickPurge(deps: SiteDeps): { stop(): void } {
  const log = deps.log.child({ feature: 'plugins' });
  const timer = setInterval(() => {
    runQuery(deps.sql, 'store/purge-install-clicks', [CLICK_PURGE_BATCH]).catch((error: unknown) =>
      log.warn('purging old install clicks failed', { err: error }),
    );
  }, CLICK_PURGE_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
