import { runNamed } from '../../../db/queries.js';
import type { SiteDeps } from '../context.js';

// A click row older than an hour no longer de-duplicates anything; the purge only
// keeps plugin_install_clicks small. Every process may run it: deletes are batched,
// and a batch that comes back full is followed by another, up to a bound per run,
// so a busy hour is cleared without one long statement.

export const CLICK_PURGE_INTERVAL_MS = 10 * 60 * 1000;
export const CLICK_PURGE_BATCH = 5000;
/** Batches per run at most: 100,000 rows every 10 minutes. */
export const CLICK_PURGE_MAX_BATCHES = 20;

export async function purgeOldClicks(deps: Pick<SiteDeps, 'sql'>, batch = CLICK_PURGE_BATCH, maxBatches = CLICK_PURGE_MAX_BATCHES): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const [row] = await runNamed(deps.sql, 'store/purge-install-clicks', { batch });
    const deleted = row?.deleted ?? 0;
    total += deleted;
    if (deleted < batch) break;
  }
  return total;
}

export function startClickPurge(deps: SiteDeps): { stop(): void } {
  const log = deps.log.child({ feature: 'plugins' });
  const timer = setInterval(() => {
    purgeOldClicks(deps).then(
      (count) => {
        if (count > 0) log.info('old install clicks purged', { count });
      },
      (error: unknown) => log.warn('purging old install clicks failed', { err: error }),
    );
  }, CLICK_PURGE_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
