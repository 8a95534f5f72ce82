import { prepareAnswer, strongEtag, type Coding, type PreparedAnswer } from '../../../http/answer/index.js';
// Not in answer/index.ts, but the parser sendPrepared itself uses for an answer sent
// in one coding only: the choice of fileListFor and sendPrepared's never disagree.
import { acceptedCoding } from '../../../http/answer/coding.js';
import { LIST_CACHE_CONTROL } from './limits.js';

// The two icon lists as prepared answers, made once per scan of the icon folder
// (icon-catalog.ts, icon-aliases.ts) and sent by list-route.ts.

/** GET /api/svg_files in each coding it is sent in. */
export interface FileListAnswers {
  readonly plain: PreparedAnswer;
  /**
   * ~6,000 names are ~130 KB of JSON and ~25 KB in gzip, made at the first request
   * that takes it. The two codings are two representations, each with its own ETag
   * (RFC 9110 8.8.3), so a prepared answer each: one that is never compressed, and
   * one that is only ever sent in gzip.
   */
  readonly gzipped: PreparedAnswer;
}

const GZIP_ONLY: readonly Coding[] = Object.freeze(['gzip']);

export function fileListAnswers(json: Buffer): FileListAnswers {
  const plain = prepareAnswer(json, { cacheControl: LIST_CACHE_CONTROL, headers: { Vary: 'Accept-Encoding' }, compressMinBytes: Infinity });
  const gzip = prepareAnswer(json, { etag: strongEtag(json, 'gzip'), cacheControl: LIST_CACHE_CONTROL, compressMinBytes: 0 });
  return { plain, gzipped: { ...gzip, codings: GZIP_ONLY } };
}

/** The answer for a client's Accept-Encoding: the gzip one when it takes gzip. */
export function fileListFor(answers: FileListAnswers, acceptEncoding: string | undefined): PreparedAnswer {
  return acceptedCoding(acceptEncoding, GZIP_ONLY) === undefined ? answers.plain : answers.gzipped;
}

/** GET /api/svg_aliases: never compressed, so one representation and the one ETag it always had. */
export function aliasListAnswer(json: Buffer): PreparedAnswer {
  return prepareAnswer(json, { cacheControl: LIST_CACHE_CONTROL, compressMinBytes: Infinity });
}
