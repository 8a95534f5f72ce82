import { ratingAverage } from '../store/records.js';

// Rows of sql/queries/ratings/page.sql as the API shows them (docs/api.md, "Ratings
// and replies"): entries {user, avatar, stars, comment, createdAt, updatedAt,
// replies, replyCount}, replies {id, user, avatar, body, createdAt}, and the
// statistics {avg, count, distribution}, whose avg is the plugin's ratingAvg. The
// viewer's own rating carries `hidden` besides: only its rater sees it while an
// administrator keeps it hidden, and is told so.

export interface StatsRow {
  stars_1: number;
  stars_2: number;
  stars_3: number;
  stars_4: number;
  stars_5: number;
  rating_count: number;
  rating_sum: number;
}

/** A reply as json_build_object wrote it: createdAt is PostgreSQL's JSON timestamp text. */
interface ReplyJson {
  id: number;
  user: string;
  avatar: string;
  body: string;
  createdAt: string;
}

export interface PageRow extends StatsRow {
  /** Null on the plugin-only row (no rating at all); true for the viewer's own rating. */
  mine: boolean | null;
  /** Only ever true on the viewer's own rating: the others shown are never hidden. */
  hidden: boolean;
  username: string;
  avatar: string;
  stars: number;
  comment: string;
  created_at: Date;
  updated_at: Date;
  replies: ReplyJson[];
  reply_count: number;
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

export function ratingEntry(row: PageRow): Record<string, unknown> {
  return {
    user: row.username,
    avatar: row.avatar,
    stars: row.stars,
    comment: row.comment,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    replies: row.replies.map(replyRecord),
    replyCount: row.reply_count,
  };
}

/** The viewer's own rating: the entry, and whether it is hidden from everyone else. */
export function ownRatingEntry(row: PageRow): Record<string, unknown> {
  return { ...ratingEntry(row), hidden: row.hidden };
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
