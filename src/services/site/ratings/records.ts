import type { RatingsPageRow } from '../../../db/query-rows.js';
import { ratingAverage } from '../store/records.js';

// Rows of sql/queries/ratings/page.sql as the API shows them (docs/api.md, "Ratings
// and replies"): entries {user, avatar, stars, comment, createdAt, updatedAt,
// replies, replyCount}, replies {id, user, avatar, body, createdAt}, and the
// statistics {avg, count, distribution}, whose avg is the plugin's ratingAvg. The
// viewer's own rating carries `hidden` besides: only its rater sees it while an
// administrator keeps it hidden, and is told so.

export type StatsRow = Pick<RatingsPageRow, 'stars_1' | 'stars_2' | 'stars_3' | 'stars_4' | 'stars_5' | 'rating_count' | 'rating_sum'>;

/** A reply as json_build_object wrote it: createdAt is PostgreSQL's JSON timestamp text. */
interface ReplyJson {
  id: number;
  user: string;
  avatar: string;
  body: string;
  createdAt: string;
}

export interface RatingStats {
  avg: number;
  count: number;
  distribution: { '1': number; '2': number; '3': number; '4': number; '5': number };
}

export function ratingStats(row: StatsRow): RatingStats {
  return {
    avg: ratingAverage(row.rating_sum, row.rating_count),
    count: row.rating_count,
    distribution: { '1': row.stars_1, '2': row.stars_2, '3': row.stars_3, '4': row.stars_4, '5': row.stars_5 },
  };
}

/**
 * The rating a page row carries, or null on the plugin-only row (`mine` null: the
 * outer join found no rating). On a rating's row every rating column is there (a
 * rating has its rater, by foreign key); one missing is a bug in the query.
 */
export function ratingEntry(row: RatingsPageRow): Record<string, unknown> | null {
  if (row.mine === null) return null;
  const entry: Record<string, unknown> = {
    user: rated(row.username, 'username'),
    avatar: rated(row.avatar, 'avatar'),
    stars: rated(row.stars, 'stars'),
    comment: rated(row.comment, 'comment'),
    createdAt: rated(row.created_at, 'created_at').toISOString(),
    updatedAt: rated(row.updated_at, 'updated_at').toISOString(),
    // The array page.sql builds with json_build_object, as ReplyJson says.
    replies: (row.replies as ReplyJson[]).map(replyRecord),
    replyCount: row.reply_count,
  };
  // The viewer's own rating tells whether it is hidden from everyone else.
  if (row.mine) entry.hidden = rated(row.hidden, 'hidden');
  return entry;
}

function rated<T>(value: T | null, column: string): T {
  if (value === null) throw new Error(`ratings/page: a rating's ${column} is null`);
  return value;
}

export function replyRecord(reply: ReplyJson): Record<string, unknown> {
  return {
    id: reply.id,
    user: reply.user,
    avatar: reply.avatar,
    body: reply.body,
    // The same ISO 8601 form (UTC, milliseconds) as every other timestamp we answer.
    createdAt: new Date(reply.createdAt).toISOString(),
  };
}
