import { HttpError } from '../../../../http/errors.js';
import { createHashMemo } from '../../../../lib/hash-memo.js';
import { parseJsonBytes } from '../../../../http/json-body.js';
import { sendNoContent, sendPrepared } from '../../../../http/answer/index.js';
import { rateLimited, type RateDecision } from '../../../../http/rate-limited.js';
import type { BatchedRateLimiter } from '../../../../db/batched-rate-limiter.js';
import { breakerOf } from '../../../../db/breaker.js';
import type { Sql } from '../../../../db/pool.js';
import { runNamed } from '../../../../db/queries.js';
import type { StoreVersionsCheckUpdatesRow } from '../../../../db/query-rows.js';
import type { SiteContext, SiteDeps, SiteMiddleware } from '../../context.js';
import type { KeptAnswers } from '../../kept-answers.js';
import { installLink } from '../install-routes.js';
import { hashOfDownload } from './hosted-hash.js';
import { normalized, updatesInput, type Installed } from './updates-input.js';
import { UPDATE_BODY_HASHES } from './limits.js';

// POST /apps/api/updates: which of the plugins a launcher has installed have another
// live version, in one call (as Modrinth's POST /v2/version_files/update); with
// `launcher`, the newest approved version that launcher can run. No login;
// readable from any origin. One SQL round trip (check-updates.sql); the answer is
// kept per store generation under a hash of the request's bytes, as the visitors'
// answers of the store are (kept-answers.ts), so launchers asking the same
// question between two changes of the store share one build.

/** Prepared into every kept answer of the route (feature.ts), with its `Cache-Control: no-store`. */
export const CORS = { 'Access-Control-Allow-Origin': '*' } as const;

/** Every answer of the route, errors included, is readable from any origin. */
export const crossOriginAnswers: SiteMiddleware = async (_ctx, next) => {
  try {
    await next();
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    throw new HttpError(error.status, error.code, error.message, { field: error.field, headers: { ...error.headers, ...CORS }, cause: error.cause ?? error });
  }
};

/** OPTIONS /apps/api/updates: the CORS preflight of a JSON POST from another origin. */
export function updatesPreflight(ctx: SiteContext): void {
  sendNoContent(ctx, 204, PREFLIGHT);
}

/** The preflight's head, made once (a frozen list is written in one step). */
const PREFLIGHT = Object.freeze([
  ...Object.entries(CORS).flat(),
  'Access-Control-Allow-Methods', 'POST, OPTIONS',
  'Access-Control-Allow-Headers', 'Content-Type',
  'Access-Control-Max-Age', '86400',
]);

export function updatesHandler(deps: SiteDeps, kept: KeptAnswers, limiter: BatchedRateLimiter) {
  const scheme = deps.config.installScheme;
  const imageHost = deps.config.imageHostPublicUrl.replace(/\/+$/, '');
  const uncounted = uncountedWhileUnreachable(deps.sql);
  const hashes = createHashMemo(UPDATE_BODY_HASHES);
  return async (ctx: SiteContext) => {
    // The limit first, in memory (db/batched-rate-limiter.ts): a refused caller costs nothing more.
    // A hit PostgreSQL must count but cannot: see uncountedWhileUnreachable.
    const hit = limiter.hit(ctx.ip);
    const decision = hit instanceof Promise ? await hit.catch(uncounted) : hit;
    if (!decision.allowed) throw rateLimited(decision, 'Too many update checks; try again in a minute');
    // The answer is kept under a hash of the bytes asked: a launcher polling with the
    // same body again costs a comparison of the bytes (the hash is kept with them) and
    // a lookup, no parse. The bytes are parsed, checked and put in canonical order
    // only to build a missing answer.
    const bytes = ctx.body as Buffer;
    const key = hashes.hashOf(bytes);
    const answer = await kept.answer({ shared: key, own: key }, null, async () => {
      const question = updatesInput(parseJsonBytes(bytes));
      const asked = normalized(question.plugins);
      const rows = await runNamed(deps.sql, 'store/versions/check-updates', { ids: asked.map((entry) => entry.id), launcher: question.launcher });
      return updatesAnswer(asked, rows, scheme, imageHost);
    });
    sendPrepared(ctx, answer);
  };
}

/**
 * What a hit the database could not count decides. While the breaker of `sql` is
 * open (the database known unreachable, db/breaker.ts) it lets the caller by: only
 * kept answers can be served then, stale, and the limiter holds the hit to count it
 * later. Otherwise (a timeout on a slow database the breaker only suspects, any
 * other 503) the error is thrown on, 503 UNAVAILABLE with Retry-After: letting such
 * hits by gave one address unlimited checks, each a build, while PostgreSQL was slow.
 */
export function uncountedWhileUnreachable(sql: Sql): (error: unknown) => RateDecision {
  return (error) => {
    if (error instanceof HttpError && error.status === 503 && (breakerOf(sql)?.downSince ?? 0) !== 0) return UNCOUNTED;
    throw error;
  };
}

const UNCOUNTED: RateDecision = { allowed: true, remaining: 0, retryAfterSeconds: 1 };

function updatesAnswer(asked: Installed[], rows: StoreVersionsCheckUpdatesRow[], scheme: string, imageHost: string): Record<string, unknown> {
  const updates: unknown[] = [];
  const unknown: string[] = [];
  asked.forEach((installed, index) => {
    const live = rows[index]!;
    if (live.id === null) {
      unknown.push(installed.id);
      return;
    }
    // No approved version the asking launcher can run: nothing to offer.
    if (live.version === null || live.download === null) return;
    const sha256 = hashOfDownload(live.download, live.sha256, imageHost);
    // By hash when the launcher sent one and the live version has one; else by number.
    const differs = installed.sha256 !== null && sha256 !== null ? installed.sha256 !== sha256 : installed.version !== live.version;
    if (!differs) return;
    updates.push({
      id: live.id,
      installed: { version: installed.version, sha256: installed.sha256 },
      latest: {
        version: live.version,
        sha256,
        size: live.size === null ? null : Number(live.size),
        download: live.download,
        install_url: installLink(scheme, { id: live.id, download: live.download, sha256 }).installUrl,
        changelog: live.changelog,
      },
    });
  });
  return { success: true, updates, unknown };
}
