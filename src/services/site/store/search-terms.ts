import { badRequest } from '../../../http/errors.js';
import { codePointLength } from '../text-rules.js';

// What the search query (sql/queries/store/search.sql) is given for a `q`.

export const MAX_QUERY_LENGTH = 200;
/** Words beyond these are dropped: each word is one more trigram test per candidate. */
export const MAX_QUERY_WORDS = 8;

export interface SearchTerms {
  /** The query trimmed and lower-cased, for exact id comparison ("my_plugin"). */
  lower: string;
  /** Its words (letters and digits) joined by one space: "Mini-Map!" -> "mini map". */
  phrase: string;
  /** The words without spaces: "mini map" -> "minimap". */
  compact: string;
  /** The longest word: the most selective one to look up in the index. */
  longest: string;
  /** The other words, each of which must match too. */
  others: string[];
}

/** null when the query has no letters or digits at all (nothing can match it). */
export function searchTerms(q: string): SearchTerms | null {
  // The limit holds after NFKC too: one compatibility character can stand for five
  // ("㌕" is "キログラム"), and 200 of them made one word past the 2,047 bytes a
  // tsquery lexeme may hold (search.sql builds one from the words): a 500.
  const normalized = q.includes('\u0000') || codePointLength(q) > MAX_QUERY_LENGTH ? undefined : q.normalize('NFKC');
  if (normalized === undefined || codePointLength(normalized) > MAX_QUERY_LENGTH) {
    throw badRequest(`q must be at most ${MAX_QUERY_LENGTH} characters`, 'q');
  }
  const lower = normalized.trim().toLowerCase();
  const words = lower.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== '').slice(0, MAX_QUERY_WORDS);
  if (words.length === 0) return null;
  const longest = words.reduce((a, b) => (b.length > a.length ? b : a));
  const others = words.filter((_, i) => i !== words.indexOf(longest));
  return { lower, phrase: words.join(' '), compact: words.join(''), longest, others };
}
