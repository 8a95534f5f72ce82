import type { StoreFindPluginRecordRow, StoreRelatedPluginsRow } from '../../../db/query-rows.js';
import { markdownTree } from './markdown/plugin-markdown.js';
import type { PluginStatus, Viewer } from './visibility.js';
import { isOwnerOrAdmin, pluginStatusOf } from './visibility.js';

/*
 * The store's tables (sql/002_plugins.sql, sql/004_search.sql), for whoever
 * builds on them:
 *
 *   plugins                 the live record. id (unique case-insensitively through
 *                           plugins_id_lower; look ids up with lower(id) = lower($1)),
 *                           submitter_id -> users.id, the content fields (snake_case
 *                           of the API names; tags/permissions text[], screenshots
 *                           jsonb), status, featured, install_count, stars_1..stars_5
 *                           (kept by a trigger on plugin_ratings) and, generated from
 *                           them, rating_count, rating_sum, rating_score (Bayesian,
 *                           for sort=rating); the last review (review_action,
 *                           review_reason, reviewed_at, reviewed_by); created_at,
 *                           updated_at (content changes and reviews only);
 *                           tags_lower (generated, GIN-indexed) for the tag filter and
 *                           related plugins (sql/002).
 *   plugin_search           what q reads (sql/004): a narrow copy of each plugin's
 *                           searched and sorted fields, name words, compact key and
 *                           tsvector, kept by statement triggers on plugins (a
 *                           deleted plugin takes its row along).
 *   plugin_name_words       every word ever in a plugin name, trigram-indexed: typos
 *                           are looked up here, then plugins by their '~word' lexemes
 *                           in plugin_search.search_words (sql/004).
 *   plugin_pending_updates  one per approved plugin an author edited: `changed` lists
 *                           the API field names it changes, the same typed columns
 *                           hold their new values, submitted_at when.
 *   plugin_install_clicks   (plugin_id, client_address) -> counted_at: when that
 *                           address last counted; a click counts again after an hour.
 *   plugin_ratings          (plugin_id, user_id) primary key, stars 1-5, comment up to
 *                           500 characters, created_at, updated_at. Inserting,
 *                           changing or deleting one updates plugins.stars_N in the
 *                           same transaction (trigger store_count_stars), so avg,
 *                           count and distribution are exact under concurrency.
 *   plugin_rating_replies   id, (plugin_id, rating_user_id) -> the rating answered
 *                           (deleting the rating deletes its replies), user_id, body
 *                           1-500 characters, created_at.
 *   plugin_status_counts    plugins per status, kept by a trigger (the store front's total).
 *   plugin_records          view: plugins + submitter username + pending update,
 *                           and `revision` (sql/002): the larger of plugins.revision
 *                           and plugin_pending_updates.revision, both drawn from one
 *                           sequence by triggers on every change but counters; and
 *                           the live package's size and min_launcher_version
 *                           (live_size, live_min_launcher: sql/007);
 *   plugin_summaries        the same without long_description, for lists.
 *
 * The domains plugin_* carry each field rule; the checks count characters (code
 * points), as the API does.
 */

/**
 * A row of the plugin_records view (details) or plugin_summaries (lists), as
 * PostgreSQL describes it: every column of a view may be null as far as it can
 * tell, so pluginRowOf checks the ones a record always has.
 */
export type DescribedPluginRow = StoreRelatedPluginsRow & Partial<Pick<StoreFindPluginRecordRow, 'long_description' | 'live_entry_kind'>>;

/** A row of the plugin_records view, as postgres.js returns it (bigint as string), its columns checked. */
export interface PluginRow {
  id: string;
  submitter_id: string;
  submitter: string | null;
  name: string;
  version: string;
  author: string;
  description: string;
  long_description?: string;
  download: string;
  sha256: string | null;
  url: string | null;
  icon: string | null;
  tags: string[];
  permissions: string[];
  screenshots: unknown[];
  status: PluginStatus;
  featured: boolean;
  install_count: string | number;
  rating_count: number;
  rating_sum: number;
  review_action: 'approve' | 'reject' | null;
  review_reason: string | null;
  reviewed_at: Date | null;
  created_at: Date;
  updated_at: Date;
  pending_changed: string[] | null;
  pending_submitted_at: Date | null;
  /** Changes with every change to the plugin or its pending update (sql/002_plugins.sql). */
  revision: string;
  /** Bytes of the live package (bigint as text), null for an outside link (sql/007). */
  live_size: string | null;
  /** The live version's manifest min_launcher_version, null without one (sql/007). */
  live_min_launcher: string | null;
  /** Details only: what the live hosted version runs (sql/007 entry_kind), null for an outside link. */
  live_entry_kind?: string | null;
  [pendingColumn: `pending_${string}`]: unknown;
}

/**
 * The plugin of a described row. The views take these columns from plugins, where
 * they are NOT NULL, so a null is a bug in a view or query: it throws, naming the
 * column, rather than answering a record without it.
 */
export function pluginRowOf(row: DescribedPluginRow): PluginRow {
  const present = <K extends keyof DescribedPluginRow>(column: K): NonNullable<DescribedPluginRow[K]> => {
    const value = row[column];
    if (value === null || value === undefined) throw new Error(`plugin ${row.id ?? '?'}: its ${column} is null`);
    return value as NonNullable<DescribedPluginRow[K]>;
  };
  const action = row.review_action;
  if (action !== null && action !== 'approve' && action !== 'reject') throw new Error(`plugin ${row.id ?? '?'}: review_action ${action} is neither approve nor reject`);
  const { long_description: longDescription, ...rest } = row;
  return {
    ...rest,
    ...(longDescription === undefined ? {} : { long_description: present('long_description') }),
    id: present('id'),
    submitter_id: present('submitter_id'),
    name: present('name'),
    version: present('version'),
    author: present('author'),
    description: present('description'),
    download: present('download'),
    tags: present('tags'),
    permissions: present('permissions'),
    screenshots: present('screenshots') as unknown[],
    status: pluginStatusOf(present('status')),
    featured: present('featured'),
    install_count: present('install_count'),
    rating_count: present('rating_count'),
    rating_sum: present('rating_sum'),
    review_action: action,
    created_at: present('created_at'),
    updated_at: present('updated_at'),
    revision: present('revision'),
  };
}

/** API field name -> column, for the fields an edit may change. */
export const EDITABLE_COLUMNS = {
  name: 'name',
  version: 'version',
  author: 'author',
  description: 'description',
  longDescription: 'long_description',
  download: 'download',
  sha256: 'sha256',
  url: 'url',
  icon: 'icon',
  tags: 'tags',
  permissions: 'permissions',
  screenshots: 'screenshots',
} as const;
export type EditableField = keyof typeof EDITABLE_COLUMNS;
export const EDITABLE_FIELDS = Object.keys(EDITABLE_COLUMNS) as EditableField[];

export function ratingAverage(sum: number, count: number): number {
  return count > 0 ? sum / count : 0;
}

/**
 * The plugin as the API shows it to `viewer`: `pendingUpdate`, `review` and
 * `revision` (what a review may name, so that what is approved is what was read)
 * only for its submitter and administrators; `longDescription` only when the row
 * carries it (details do, lists do not).
 */
export function pluginRecord(row: PluginRow, viewer: Viewer): Record<string, unknown> {
  const record: Record<string, unknown> = {
    id: row.id,
    name: row.name,
    version: row.version,
    author: row.author,
    description: row.description,
  };
  if (row.long_description !== undefined) {
    record.longDescription = row.long_description;
    // What pages show: the Markdown as a tree of safe elements (store/markdown/markdown-tree.ts).
    record.longDescriptionTree = markdownTree(row.long_description);
    // What the plugin page says the package runs (details only, as the view's column).
    record.entryKind = row.live_entry_kind ?? null;
  }
  Object.assign(record, {
    download: row.download,
    sha256: row.sha256,
    url: row.url,
    icon: row.icon,
    permissions: row.permissions,
    // What the launcher's store page reads of each item (Bloret-Launcher modules/plugin_store.py normalize_listing).
    size: row.live_size === null ? null : Number(row.live_size),
    min_launcher: row.live_min_launcher,
    tags: row.tags,
    screenshots: row.screenshots,
    status: row.status,
    installCount: Number(row.install_count),
    ratingAvg: ratingAverage(row.rating_sum, row.rating_count),
    ratingCount: row.rating_count,
    featured: row.featured,
    submitter: row.submitter ?? '',
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  });
  if (isOwnerOrAdmin({ id: row.id, status: row.status, submitterId: String(row.submitter_id) }, viewer)) {
    record.pendingUpdate = pendingUpdate(row);
    record.review = row.review_action
      ? { action: row.review_action, reason: row.review_reason, at: row.reviewed_at!.toISOString() }
      : null;
    record.revision = row.revision;
  }
  return record;
}

function pendingUpdate(row: PluginRow): Record<string, unknown> | null {
  if (!row.pending_changed || !row.pending_submitted_at) return null;
  const update: Record<string, unknown> = {};
  for (const field of EDITABLE_FIELDS) {
    if (row.pending_changed.includes(field)) update[field] = row[`pending_${EDITABLE_COLUMNS[field]}`] ?? null;
  }
  // As the record's own: what the review page shows of a proposed long description.
  if (typeof update.longDescription === 'string') update.longDescriptionTree = markdownTree(update.longDescription);
  update.submittedAt = row.pending_submitted_at.toISOString();
  return update;
}
