import { validationFailed } from '../../../http/errors.js';
import { objectBody } from '../../../http/json-body.js';
import { integerParam } from '../../../http/query-params.js';
import { text } from '../text-rules.js';

// The rating and reply rules (docs/api.md, "Ratings and replies" and "Limits"). Body fields failing a rule are 400 VALIDATION_FAILED naming the field;
// a bad `limit` or `offset` is a malformed query, 400 BAD_REQUEST naming it (as for
// the plugin list). The database holds the same limits (sql/003_ratings.sql).

export const MIN_STARS = 1;
export const MAX_STARS = 5;
/** Characters (code points), not bytes or UTF-16 units. */
export const MAX_COMMENT_LENGTH = 500;
export const MAX_REPLY_LENGTH = 500;
export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 50;
/** Deeper than any plugin's ratings go; keeps the number a small integer. */
export const MAX_PAGE_OFFSET = 1_000_000;
/** Replies shown under each rating, newest first; `replyCount` says how many there are. */
export const REPLIES_SHOWN = 50;

export interface RatingInput {
  stars: number;
  /** Null when the body has no `comment`: a change of stars alone keeps the comment. */
  comment: string | null;
}

export interface PageRequest {
  limit: number;
  offset: number;
}

/** PUT .../ratings: `stars` a whole number 1-5; `comment` optional, up to 500 characters (null or "" clears it). */
export function parseRatingInput(body: unknown): RatingInput {
  const fields = objectBody(body, 'with stars and comment');
  const stars = fields.stars;
  if (typeof stars !== 'number' || !Number.isInteger(stars) || stars < MIN_STARS || stars > MAX_STARS) {
    throw validationFailed('stars', `stars must be a whole number from ${MIN_STARS} to ${MAX_STARS}`);
  }
  if (fields.comment === undefined) return { stars, comment: null };
  if (fields.comment === null) return { stars, comment: '' };
  return { stars, comment: text('comment', fields.comment, 0, MAX_COMMENT_LENGTH).trim() };
}

/** POST .../replies: `body`, or `comment` as its alias; 1-500 characters once trimmed. */
export function parseReplyInput(body: unknown): string {
  const fields = objectBody(body, 'with body');
  const value = fields.body !== undefined ? fields.body : fields.comment;
  if (value === undefined || value === null) throw validationFailed('body', 'body is required');
  const reply = text('body', value, 0, MAX_REPLY_LENGTH).trim();
  if (reply === '') throw validationFailed('body', 'body must not be empty');
  return reply;
}

/** GET .../ratings: `limit` 1-50 (default 20), `offset` from 0 (default 0). */
export function parsePageRequest(query: URLSearchParams): PageRequest {
  return {
    limit: integerParam(query, 'limit', { fallback: DEFAULT_PAGE_LIMIT, min: 1, max: MAX_PAGE_LIMIT }),
    offset: integerParam(query, 'offset', { fallback: 0, min: 0, max: MAX_PAGE_OFFSET }),
  };
}

/** Reply ids are positive bigints; anything else cannot name a reply (404, not 400). */
export function isReplyId(value: string): boolean {
  return /^[1-9][0-9]{0,17}$/.test(value);
}


