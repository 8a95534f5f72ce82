import { createLru, type Lru, type LruOptions } from '../../lib/lru.js';
import { prepareJson, servedStale, type PreparedAnswer } from '../../http/answer/index.js';
import { createSingleFlight } from '../../lib/single-flight.js';
import { LATE, settledWithin } from '../../lib/settled-within.js';
import { isHttpError, type HttpError } from '../../http/errors.js';
import { breakerOf } from '../../db/breaker.js';
import { databaseUnavailable } from '../../db/deadline.js';
import { runNamed } from '../../db/queries.js';
import { clockOf, type Sql } from '../../db/pool.js';
import type { SiteContext, SiteMiddleware, Viewer } from './context.js';
import { generationsOf, type Generations } from './generations.js';
import { DEFAULT_STALE_IF_ERROR_SECONDS } from './settings.js';
import { outageCopiesOf, type OutageCopies } from './outage-copies.js';

// The store's lists and details (and the review queue) are the same bytes until the
// catalogue changes, and building a page of 100 plugins (rows parsed, records
// shaped, JSON.stringify, zlib) costs far more than reading one number. So each
// answer is kept, tagged with the store's generation read before it was built
// (sql/008_generations.sql; pending updates move it too), and
// reused while the generation is the same.
//
// The generation lives in PostgreSQL and changes in the committing transaction, so
// this is exact across any number of site processes: a request reads it first, and
// an answer built before a commit is never served after it. Concurrent requests for
// the same missing answer share one build.
//
// Two kinds of answers are kept, in two bounded caches so that neither crowds out
// the other:
// - The visitors' answers (no session: the launcher, the store front, a plugin
//   page), shared by everyone who sees what a visitor sees. A logged-in player who
//   has never submitted a plugin is one of them (visibility.ts: approved plugins,
//   and no review fields since they own none); the same read tells whether they
//   have submitted any.
// - An author's or administrator's own answers (their plugins in any status, with
//   `pendingUpdate`, `review`, `revision`), and answers about the caller whoever
//   they are (scope=mine, scope=admin, the review queue): kept under the user's id
//   and administrator flag, so one user's answer is never another's, and a user
//   whose rights change asks another question.
//
// While PostgreSQL cannot be reached (the pool's breaker is open, db/breaker.ts),
// the generation cannot be read, and a visitor is served the visitors' answer kept
// for the question, for up to STALE_IF_ERROR_SECONDS after the database went away,
// marked in Cache-Status (http/answer/prepared.ts: servedStale) with its age since it was last
// confirmed current; without one, the 503. Only an answer of the VISIBILITY
// generation this process last read is served (sql/008, sql/009: it moves only when
// what a visitor may see changes): one built before a plugin was hidden or removed,
// its download replaced or its text edited, a version removed or a rating hidden is
// not served, one built before an install click or a new rating is. A hung database
// answers no error: a visitor whose read has not come back within STALE_AFTER_MS
// (200 ms) is served the kept answer the same way, if one is held, and waits on
// otherwise. Once the database answers, the next request reads the
// generation again and rebuilds what changed meanwhile. Only the failing path
// looks for a stale answer: a request the database answers does nothing more.
//
// Outage copies (outage-copies.ts): an answer a visitor was served must outlive the
// churn of lists and searches through the bounded cache. When the visitors' cache
// pushes an answer out to make room, it moves, packed small, to the process's outage
// copies if it is of the last visibility generation; rebuilding the answer takes it
// out again. So each answer is held by one store at a time, and a hit costs nothing
// more. Not only those served within STALE_IF_ERROR_SECONDS: a plugin page a
// visitor saw 15 minutes ago is still what a visitor may see (the visibility
// generation says so), and a 30-minute soak asks for such pages during outages;
// the bound keeps the most recent.

// The visitors' answers are also what a process serves while PostgreSQL is away, so
// they are bounded by bytes, not by a count a mid-size catalogue outgrows: with 256
// entries, 2000 plugins' details (with and without related) and ratings pages
// pushed out answers seen minutes before, and a 3-minute soak had 16 visitor reads
// this process had answered fail during a PostgreSQL outage.
export const VISITOR_ANSWERS: LruOptions = { maxEntries: 8192, maxBytes: 32 * 1024 * 1024 };
/**
 * What an entry weighs beside its answer's bytes and key (the Kept record, the
 * prepared answer, its header list, the map's slot): measured at about 900 bytes of
 * heap for a small answer, so the byte bounds hold for many small answers too.
 */
const ENTRY_OVERHEAD_BYTES = 1024;
export const OWN_ANSWERS: LruOptions = { maxEntries: 1024, maxBytes: 32 * 1024 * 1024 };
/** Users whose "has submitted a plugin" is known under some generation (a few dozen bytes each). */
const SUBMITTERS: LruOptions = { maxEntries: 10_000, maxBytes: 1024 * 1024 };

/**
 * How long a visitor waits for the generation read before the answer kept for the
 * question is served stale, when one is held: a hung PostgreSQL (a frozen server, a
 * network that drops packets) answers no error, and the breaker only opens after a
 * query's deadline and a confirming probe (db/breaker.ts), seconds later. On a
 * database that answers, the read (one short statement, shared) takes a round trip.
 */
export const STALE_AFTER_MS = 200;

/** Answers depend on the session: no shared cache may keep them. */
const NO_STORE = 'no-store';

interface Kept {
  /** The store generation it was built under: reused while it is current. */
  generation: bigint;
  /** The visibility generation read with it (sql/008): served stale only while it is the last one read. */
  visibility: bigint;
  answer: PreparedAnswer;
  /** When the read it was last served under came back (the pool's clock): it was current then. */
  servedAt: number;
}

/** The generations an answer is built or served under, from one read. */
interface Tag {
  store: bigint;
  visibility: bigint;
  at: number;
}

/** What decides an answer, as a key (the caller's identity is added for `own`). */
export interface Question {
  /**
   * The question as a visitor asks it, when a caller who sees what a visitor sees
   * gets the visitors' answer; absent when the answer is always about the caller.
   */
  shared?: string;
  /** The question as a user asks it (may name more than `shared`: public=1 changes an author's list). */
  own: string;
}

export interface KeptAnswers {
  /**
   * Put before the guard that looks up the caller's session: starts the store's
   * generation read of a request that carries a cookie or token side by side with
   * the session lookup, so a logged-in caller waits one round trip, not two.
   */
  readAhead: SiteMiddleware;
  /**
   * The answer to `question` as `viewer` sees it under the current generation
   * (`no-store`), built by `build(viewer)` when missing, for the route to send
   * (sendPrepared). `ctx`: the request, whose generation read readAhead may have
   * started; without it, a read of its own.
   */
  answer(question: Question, viewer: Viewer, build: (viewer: Viewer) => Promise<unknown>, ctx?: SiteContext): Promise<PreparedAnswer>;
}

export interface KeptAnswersOptions {
  visitors?: LruOptions;
  own?: LruOptions;
  /** Names this cache's answers among the outage copies the process's caches share: one name per cache. */
  name?: string;
  /** Where answers pushed out go (outage-copies.ts); default: the process's, outageCopiesOf(sql). */
  outageCopies?: OutageCopies;
  /** STALE_IF_ERROR_SECONDS (site settings). */
  staleIfErrorSeconds?: number;
  /** Headers of every answer kept here (the update check's CORS), prepared with it: none added per request. */
  headers?: Record<string, string>;
}

/** What a kept answer served stale says in Cache-Status (servedStale): the database could not be reached. */
export const STALE_DETAIL = 'stale-db-unreachable';

/**
 * When `error` is the 503 of a database that does not answer, the seconds since
 * `confirmedAt` (when the answer to serve was last known current, by the pool's clock);
 * else undefined: an answer held from before may be served stale only then. With
 * the breaker open, for up to `staleIfErrorSeconds` after it opened. With it closed,
 * when this request's own query found the database not answering, which the breaker
 * only suspects (a connect that timed out while PostgreSQL starts again, a query
 * past its deadline): a 30-minute soak had a list this process had served answered
 * 503 three seconds after PostgreSQL came back.
 */
export function staleFor(sql: Sql, error: unknown, staleIfErrorSeconds: number, confirmedAt: number): number | undefined {
  if (staleIfErrorSeconds <= 0 || !isHttpError(error) || error.status !== 503) return undefined;
  const downSince = breakerOf(sql)?.downSince ?? 0;
  const now = clockOf(sql)();
  if (downSince !== 0 && (now - downSince) / 1000 >= staleIfErrorSeconds) return undefined;
  return (now - confirmedAt) / 1000;
}

/** What a read that has not come back in STALE_AFTER_MS counts as: a database not answering in time. */
export const databaseNotAnswering = (): HttpError => databaseUnavailable();

export function createKeptAnswers(sql: Sql, options: KeptAnswersOptions = {}): KeptAnswers {
  const staleIfErrorSeconds = options.staleIfErrorSeconds ?? DEFAULT_STALE_IF_ERROR_SECONDS;
  // The store's generations, read with the sessions' in one statement shared by the
  // callers arriving together (site/generations.ts): a visitor's, an
  // administrator's, and a user's whose "has submitted" is known (below).
  const generations = generationsOf(sql);
  const now = clockOf(sql);

  // The outage copies (above), shared by the process's caches: this one's keys carry its name.
  const copies = options.outageCopies ?? outageCopiesOf(sql);
  const copyKey = (key: string) => `${options.name ?? 'store'} ${key}`;
  const keepCopy = (key: string, kept: Kept) => {
    // STALE_IF_ERROR_SECONDS=0 serves nothing stale: nothing to keep for it.
    if (staleIfErrorSeconds > 0 && kept.visibility === generations.lastRead()?.visibility) copies.keep(copyKey(key), kept, kept.answer);
  };
  const visitors = createLru<Kept>(options.visitors ?? VISITOR_ANSWERS, keepCopy);
  const own = createLru<Kept>(options.own ?? OWN_ANSWERS);
  const building = createSingleFlight<PreparedAnswer>();

  /**
   * When `error` is the 503 of an unreachable database and a visitor asks a question
   * whose answer is kept, that answer, marked stale; else `error` is thrown on.
   */
  const staleOr = (error: unknown, question: Question, viewer: Viewer): PreparedAnswer => {
    const stale = staleAnswer(error, question, viewer);
    if (stale === undefined) throw error;
    return stale;
  };
  /** The answer to serve stale when `error` stopped the fresh one (see staleFor), if one is held. */
  const staleAnswer = (error: unknown, question: Question, viewer: Viewer): PreparedAnswer | undefined => {
    // Only an answer of the visibility generation last read shows nothing a visitor
    // may no longer see. One of the store generation last read was current when that
    // read came back; an older one, when it was last served.
    const last = generations.lastRead();
    if (viewer !== null || question.shared === undefined || last === undefined) return undefined;
    const key = `v ${question.shared}`;
    const cached = visitors.get(key);
    const inCache = cached !== undefined && cached.visibility === last.visibility;
    const copy = inCache ? undefined : copies.find(copyKey(key));
    const found = inCache ? cached : copy;
    if (found === undefined || found.visibility !== last.visibility) return undefined;
    const secondsStale = staleFor(sql, error, staleIfErrorSeconds, found.generation === last.store ? last.at : found.servedAt);
    if (secondsStale === undefined) return undefined;
    return servedStale(copy !== undefined ? copy.packed : cached!.answer, secondsStale, STALE_DETAIL);
  };
  // A visitor's wait for a shared read, bounded by STALE_AFTER_MS: one timer per read, not per request.
  const boundedReads = new WeakMap<Promise<Generations>, Promise<Generations | typeof LATE>>();
  const bounded = (shared: Promise<Generations>) => {
    let read = boundedReads.get(shared);
    if (read === undefined) {
      read = settledWithin(shared, STALE_AFTER_MS);
      boundedReads.set(shared, read);
    }
    return read;
  };
  const readGeneration = (viewerId: string) =>
    runNamed(sql, 'store/generation', { viewer_id: viewerId }).then(([row]) => {
      // store_generation holds its one row from sql/008_generations.sql on.
      if (row === undefined) throw new Error('store/generation: store_generation has no row');
      return row;
    });
  // Whether a user has submitted any plugin, under the generation it was read at:
  // it changes only with a write to plugins, which moves the generation, so while
  // the generation is the same the user needs only the shared read above, not a
  // read of their own.
  const submitters = createLru<{ generation: bigint; submits: boolean }>(SUBMITTERS);
  const readAs = async (viewer: NonNullable<Viewer>, shared: Tag): Promise<{ tag: Tag; submits: boolean }> => {
    const known = submitters.get(viewer.id);
    if (known?.generation === shared.store) return { tag: shared, submits: known.submits };
    const row = await readGeneration(viewer.id);
    const tag: Tag = { store: BigInt(row.generation), visibility: BigInt(row.visibility), at: now() };
    const current = submitters.get(viewer.id);
    if (!current || current.generation < tag.store) submitters.set(viewer.id, { generation: tag.store, submits: row.viewer_submits }, viewer.id.length + 32);
    return { tag, submits: row.viewer_submits };
  };

  const keep = (cache: Lru<Kept>, key: string, tag: Tag, build: () => Promise<unknown>): Promise<PreparedAnswer> => {
    const found = cache.get(key);
    if (found?.generation === tag.store) {
      found.servedAt = tag.at;
      return Promise.resolve(found.answer);
    }
    const generation = tag.store;
    return building(`${generation} ${key}`, async () => {
      // Sent with no-store: no ETag to hash. The header is in the prepared list, so
      // sending it copies no list per request (http/answer/send.ts).
      const answer = prepareJson(await build(), { etag: false, cacheControl: NO_STORE, headers: options.headers });
      // A slower build of an older generation never replaces a newer answer.
      const current = cache.get(key);
      if (!current || current.generation < generation) {
        cache.set(key, { generation, visibility: tag.visibility, answer, servedAt: tag.at }, answer.bytes + key.length + ENTRY_OVERHEAD_BYTES);
        // Held by the cache again: one store at a time (above).
        if (cache === visitors) copies.drop(copyKey(key));
      }
      return answer;
    });
  };

  // The shared read started when a request came in (readAhead): it began after the
  // request arrived, so it is as fresh as one started later, and it ran while the
  // session was looked up (whose guard shares it, auth/kept-sessions.ts).
  const mayBeLoggedIn = (ctx: SiteContext) => ctx.req.headers.cookie !== undefined || ctx.req.headers.authorization !== undefined;
  const readAhead: SiteMiddleware = (ctx, next) => {
    if (mayBeLoggedIn(ctx)) void generations.readFor(ctx);
    return next();
  };

  const answerTo = async (
    question: Question, viewer: Viewer, build: (viewer: Viewer) => Promise<unknown>, shared: Promise<Generations>,
  ): Promise<PreparedAnswer> => {
    // An administrator never gets the visitors' answers: whether they submitted any does not matter.
    let tag: Tag;
    let submits = false;
    try {
      const read = viewer === null && question.shared !== undefined ? await bounded(shared) : await shared;
      if (read === LATE) {
        const stale = staleAnswer(databaseNotAnswering(), question, viewer);
        if (stale !== undefined) return stale;
      }
      tag = read === LATE ? await shared : read;
      if (viewer !== null && !viewer.admin) ({ tag, submits } = await readAs(viewer, tag));
    } catch (error) {
      return staleOr(error, question, viewer);
    }
    const asVisitor = viewer === null || (!viewer.admin && !submits);
    if (asVisitor && question.shared !== undefined) {
      const key = `v ${question.shared}`;
      const found = visitors.get(key);
      if (found?.generation === tag.store) {
        found.servedAt = tag.at;
        return found.answer;
      }
      // The database went away between the generation and the build: as above.
      return keep(visitors, key, tag, () => build(null)).catch((error: unknown) => staleOr(error, question, viewer));
    }
    // Visitors are never asked an own question (those routes need a user): kept under nobody's name all the same.
    const who = viewer === null ? '-' : `${viewer.id}${viewer.admin ? 'a' : 'u'}`;
    return keep(own, `o ${who} ${question.own}`, tag, () => build(viewer));
  };

  return {
    readAhead,
    // A visitor's request needs no read of its own to remember (readAhead started none).
    answer: (question, viewer, build, ctx) =>
      answerTo(question, viewer, build, ctx !== undefined && mayBeLoggedIn(ctx) ? generations.readFor(ctx) : generations.read()),
  };
}
