import type { Sql } from '../../../db/pool.js';
import { runNamed } from '../../../db/queries.js';
import { ratingEntry, ratingStats, type RatingStats } from './records.js';
import { REPLIES_SHOWN } from './validation.js';

export interface RatingsPage {
  stats: RatingStats;
  ratings: Record<string, unknown>[];
  /** The viewer's own rating with `hidden`, or null (always null without a viewer). */
  mine: Record<string, unknown> | null;
}

/**
 * Statistics, one page of ratings and the viewer's own rating of plugin `pluginId`
 * (its exact id), in one query. With limit 0 it answers the statistics and the
 * viewer's rating alone: what a write reads back, inside its transaction, so the
 * statistics include its change and every change committed before it.
 */
export async function readRatingsPage(
  sql: Sql,
  pluginId: string,
  page: { limit: number; offset: number; viewerId: string | null },
): Promise<RatingsPage> {
  const rows = await runNamed(sql, 'ratings/page', { plugin_id: pluginId, limit: page.limit, offset: page.offset, viewer_id: page.viewerId, replies_shown: REPLIES_SHOWN });
  // The plugin row is always there (the caller found the plugin); a deletion in
  // between would leave nothing to show but zeros.
  const first = rows[0];
  const stats = first
    ? ratingStats(first)
    : { avg: 0, count: 0, distribution: { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0 } };
  const ratings: Record<string, unknown>[] = [];
  let mine: Record<string, unknown> | null = null;
  for (const row of rows) {
    const entry = ratingEntry(row);
    if (entry === null) continue;
    if (row.mine) mine = entry;
    else ratings.push(entry);
  }
  return { stats, ratings, mine };
}
