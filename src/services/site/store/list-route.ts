import { sendPrepared } from '../../../http/answer/index.js';
import { badRequest } from '../../../http/errors.js';
import { integerParam, singleParam } from '../../../http/query-params.js';
import { queryText, runNamed } from '../../../db/queries.js';
import { requireAdmin, requireUser } from '../auth/guards.js';
import type { SiteContext, SiteDeps } from '../context.js';
import { pluginRecord, pluginRowOf, type DescribedPluginRow, type PluginRow } from './records.js';
import { searchTerms } from './search-terms.js';
import type { KeptAnswers } from '../kept-answers.js';
import { listVisibility, type PluginStatus, type Viewer } from './visibility.js';
import { addPackagesToMany } from './versions/package-review.js';
import { addPackageCheck, findPackageChecks } from './package-checks/check-record.js';
import { addDownloadWarnings } from './download-hosts.js';

// GET /apps/api/plugins: {success, plugins, total, limit, offset}. One query, one
// round trip, whatever the parameters: sql/queries/store/list-<sort>.sql, one per
// sort, or search.sql.

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 500;
/** Deep pages cost a walk of the index up to them; past this, a search narrows better. */
export const MAX_LIST_OFFSET = 1_000_000;
/**
 * include=review (scope=admin or scope=mine): each plugin as its detail shows it to
 * its author or an administrator (longDescription, package, pendingUpdate.package
 * with its files), so the review page needs one answer, not one per plugin. Files
 * make these records large: at most this many a page.
 */
export const MAX_REVIEW_LIST_LIMIT = 100;

/**
 * The query of each sort (the default is updated); they differ only in their order.
 * oldest is updated reversed (least recently updated first): the review queue's order.
 */
const LIST_QUERIES = { updated: 'store/list-updated', rating: 'store/list-rating', installs: 'store/list-installs', oldest: 'store/list-oldest' } as const;
const SORTS = Object.keys(LIST_QUERIES) as Array<keyof typeof LIST_QUERIES>;
const STATUSES: PluginStatus[] = ['pending', 'approved', 'rejected'];

export function listHandler(deps: SiteDeps, keptAnswers: KeptAnswers) {
  // A sort without its query fails at start-up, not on the first request for it.
  for (const name of Object.values(LIST_QUERIES)) queryText(name);
  return async (ctx: SiteContext) => {
    const query = ctx.query;
    const user = ctx.locals.user;
    const scope = singleParam(query, 'scope');
    let submitter: string | null = null;
    if (scope === 'mine') submitter = requireUser(ctx).id;
    else if (scope === 'admin') requireAdmin(ctx);
    else if (scope !== undefined && scope !== '') throw badRequest('scope must be "mine" or "admin"', 'scope');

    const isPublic = flag(query, 'public');
    const status = optionalChoice(query, 'status', STATUSES);
    const sort = optionalChoice(query, 'sort', SORTS);
    const tag = singleParam(query, 'tag')?.trim().toLowerCase() || null;
    // A tag is at most 32 characters; NUL cannot reach PostgreSQL text at all.
    if (tag !== null && (tag.length > 64 || tag.includes('\u0000'))) throw badRequest('tag must be one tag of at most 32 characters', 'tag');
    const limit = integerParam(query, 'limit', { fallback: DEFAULT_LIST_LIMIT, min: 1, max: MAX_LIST_LIMIT });
    const offset = integerParam(query, 'offset', { fallback: 0, min: 0, max: MAX_LIST_OFFSET });
    const review = query.getAll('include').some((value) => value.split(',').some((item) => item.trim() === 'review'));
    if (review && scope !== 'admin' && scope !== 'mine') throw badRequest('include=review needs scope=admin or scope=mine', 'include');
    if (review && limit > MAX_REVIEW_LIST_LIMIT) throw badRequest(`include=review lists at most ${MAX_REVIEW_LIST_LIMIT} plugins a page`, 'limit');
    // A list's rows, less the one an empty page answers its total on (no plugin: a null id).
    const records = (described: DescribedPluginRow[], viewer: Viewer) => {
      const rows = described.filter((row) => row.id !== null).map(pluginRowOf);
      return review ? reviewRecords(deps, rows, viewer) : Promise.resolve(rows.map((row) => pluginRecord(row, viewer)));
    };
    // The review queue of pending updates: a list of its own, scoped, no other filter.
    if (singleParam(query, 'update') !== undefined) {
      if (singleParam(query, 'update') !== 'pending') throw badRequest('update must be "pending"', 'update');
      if (scope !== 'admin' && scope !== 'mine') throw badRequest('update=pending needs scope=admin or scope=mine', 'update');
      const queue = async (viewer: Viewer) => {
        const queued = await runNamed(deps.sql, 'store/list-pending-updates', { limit, offset, submitter_id: submitter });
        const plugins = await records(queued, viewer);
        return listAnswer(plugins, queued[0]?.total ?? 0, limit, offset);
      };
      return sendPrepared(ctx, await keptAnswers.answer({ own: JSON.stringify(['queue', scope, limit, offset, review]) }, user, queue, ctx));
    }
    const featured = flag(query, 'featured');
    const q = singleParam(query, 'q');
    const terms = q !== undefined && q.trim() !== '' ? searchTerms(q) : undefined;

    const page = async (viewer: Viewer) => {
      // Only punctuation: nothing can match it (an empty list, not everything).
      if (terms === null) return listAnswer([], 0, limit, offset);
      // public=1 is the store front: approved plugins only, whoever asks.
      const visibility = isPublic ? { viewerId: null, seesAll: false } : listVisibility(viewer);
      const filters = {
        viewer_id: visibility.viewerId,
        sees_all: visibility.seesAll,
        status,
        submitter_id: submitter,
        tag,
        featured_only: featured,
        limit,
        offset,
      };
      const rows = terms
        ? await runNamed(deps.sql, 'store/search', {
          ...filters,
          query_lower: terms.lower,
          phrase: terms.phrase,
          compact: terms.compact,
          other_words: terms.others,
          longest_word: terms.longest,
          sort: sort ?? 'relevance',
        })
        : await runNamed(deps.sql, LIST_QUERIES[sort ?? 'updated'], filters);
      const plugins = await records(rows, viewer);
      return listAnswer(plugins, rows[0]?.total ?? 0, limit, offset);
    };
    // Kept per store generation (kept-answers.ts) under what decides them, so neither
    // the order of the parameters nor unknown ones make another copy: whoever sees
    // what a visitor sees gets the visitors' bytes (public=1 changes nothing for a
    // visitor, and the words of q decide its search); an author or administrator
    // gets their own (public=1 hides their unapproved plugins); a scope is about the
    // caller, so it is always their own.
    const search = terms === undefined ? null : (terms?.lower ?? '');
    const question = ['list', status, sort, tag, featured, limit, offset, search];
    const shared = scope ? undefined : JSON.stringify(question);
    const own = JSON.stringify([...question, scope ?? null, isPublic, review]);
    sendPrepared(ctx, await keptAnswers.answer({ shared, own }, user, page, ctx));
  };
}

/**
 * The listed plugins as their details show them to an author or administrator (the
 * scopes include=review is allowed in list only those): two round trips for the
 * whole page, the full records, then their hosted files; and their `warnings` and
 * `packageCheck`.
 */
async function reviewRecords(deps: SiteDeps, rows: PluginRow[], viewer: Viewer): Promise<Array<Record<string, unknown>>> {
  if (rows.length === 0) return [];
  const full = (await runNamed(deps.sql, 'store/find-plugin-records', { plugin_ids: rows.map((row) => row.id) })).map(pluginRowOf);
  const byId = new Map(full.map((row) => [row.id, row]));
  const pairs = rows.map((listed) => {
    // A plugin deleted between the two reads stays as listed.
    const row = byId.get(listed.id) ?? listed;
    return { row, record: pluginRecord(row, viewer) };
  });
  await addPackagesToMany(deps.sql, pairs);
  const checks = await findPackageChecks(deps.sql, pairs.map(({ row }) => row.id));
  for (const { row, record } of pairs) {
    addDownloadWarnings(record, deps.config.imageHostPublicUrl);
    addPackageCheck(record, checks.get(row.id), true);
  }
  return pairs.map((pair) => pair.record);
}

function listAnswer(plugins: unknown[], total: number, limit: number, offset: number) {
  return { success: true, plugins, total, limit, offset };
}

function flag(query: URLSearchParams, name: string): boolean {
  const value = singleParam(query, name);
  if (value === undefined || value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw badRequest(`${name} must be 1 or 0`, name);
}

function optionalChoice<T extends string>(query: URLSearchParams, name: string, choices: readonly T[]): T | null {
  const value = singleParam(query, name);
  if (value === undefined || value === '') return null;
  if (!(choices as readonly string[]).includes(value)) throw badRequest(`${name} must be one of ${choices.join(', ')}`, name);
  return value as T;
}
