import type { Migration } from './migrate.js';

// Before the first release the schema grew through migrations that redefined each
// other, folded twice since into files that hold only final definitions:
//
//   the first chain, sql/001_init..071 (28 files), into sql/001_users..007_store_generation;
//   the second chain, those seven files and the ones appended after them,
//   sql/100_plugin_revisions..283_removed_packages (19 files), into sql/001..009.
//
// A database migrated by the whole second chain has the folded schema but for one
// thing: four functions bumped the generations where the folded files have one
// (sql/009_generation_bumps.sql). It is carried over at once, before anything else
// is applied and in one transaction: sql/carry-over/old-generation-bumps.sql drops
// the four with their triggers, sql/009's text makes the one and the triggers
// again, and schema_migrations records the folded files instead of the second
// chain's (scripts/check-folded-schema.ts proves the result identical to a new
// database). A database of the first chain, or of part of the second, lacks
// migrations the folded files hold but this code no longer has: it is refused
// before anything is applied, with one line saying what to do.

/** version and name of each file of the first pre-release chain, in order. */
export const FIRST_CHAIN: ReadonlyArray<readonly [number, string]> = [
  [1, 'init'], [2, 'rate_limits'], [3, 'admin_pins'], [10, 'plugins'], [11, 'plugin_ratings'],
  [12, 'plugin_summaries'], [13, 'plugin_status_counts'], [14, 'plugin_search_fields'], [15, 'plugin_tags_lower'],
  [16, 'plugin_status_counts_bulk'], [17, 'plugin_search_words'], [20, 'plugin_tag_counts'], [21, 'plugin_related'],
  [22, 'plugin_related_rows'], [30, 'pending_updates_queue'], [31, 'api_tokens'], [40, 'plugin_install_days'],
  [41, 'audit_log'], [42, 'reports'], [43, 'notifications'], [44, 'webhooks'], [45, 'audit_token_targets'],
  [50, 'store_generation'], [60, 'plugin_search'], [61, 'plugin_search_tier'], [62, 'plugin_search_sync'],
  [70, 'plugin_related_one_loop'], [71, 'plugin_search_sync_cheap_updates'],
];

/** version and name of each file of the second pre-release chain, in order. */
export const SECOND_CHAIN: ReadonlyArray<readonly [number, string]> = [
  [1, 'users'], [2, 'plugins'], [3, 'ratings'], [4, 'search'], [5, 'related'],
  [6, 'tokens_audit_reports_notifications_webhooks'], [7, 'store_generation'],
  [100, 'plugin_revisions'], [110, 'rating_moderation'], [111, 'rating_notices'],
  [140, 'store_generation_pending_updates'], [150, 'plugin_versions'], [200, 'restorable_screenshot_check'],
  [230, 'plugins_updated_order'], [231, 'session_generation'], [240, 'visibility_generation'],
  [241, 'visibility_on_content_edits'], [280, 'ratings_generation'], [281, 'version_reservations'],
  [282, 'revision_on_discarded_update'], [283, 'removed_packages'],
];

/** The files that replace both chains; later migrations are numbered after the second chain's last. */
export const FOLDED_CHAIN: ReadonlyArray<readonly [number, string]> = [
  [1, 'users'], [2, 'plugins'], [3, 'ratings'], [4, 'search'], [5, 'related'],
  [6, 'tokens_audit_reports_notifications_webhooks'], [7, 'versions'], [8, 'generations'], [9, 'generation_bumps'],
];

/** The folded files a carried-over database runs (after sql/carry-over/old-generation-bumps.sql). */
export const CARRY_OVER_RUNS: ReadonlyArray<number> = [9];

/** The last file of the second chain: a checkout holding it migrates a database of either chain. */
const LAST_OF_SECOND = 'sql/283_removed_packages.sql';

/**
 * The schema_migrations of this database do not fit the files in sql/. The message
 * is one line saying what to do; it is raised before any migration is applied.
 */
export class MigrationChainError extends Error {
  override name = 'MigrationChainError';
}

const fileName = (version: number, name: string) => `sql/${String(version).padStart(3, '0')}_${name}.sql`;

export interface AppliedMigration {
  version: number;
  name: string;
}

export type ChainCheck =
  | { kind: 'current' }
  /** The whole second chain: its rows (`replaced`) are to be recorded as `folded`, after the carry-over runs `runs`. */
  | { kind: 'carry-over'; replaced: number[]; folded: Migration[]; runs: Migration[] };

/** What to do with a database this code cannot carry over: `command` is what the older checkout runs. */
const withOlderCode = (command: string) =>
  `migrate it first with a checkout of the commit before the fold (the parent of \`git rev-list -1 HEAD -- ${LAST_OF_SECOND}\`: \`${command}\` there), then start this version; or dump your data (pg_dump --data-only), drop and recreate the database, start once to create the schema, then restore the data`;

/**
 * Compares what schema_migrations records with the files. A database of the whole
 * second chain is to be carried over; one of the first chain, of part of the
 * second, or of any chain whose file at some version has another name, is refused
 * (MigrationChainError).
 */
export function checkChain(applied: AppliedMigration[], migrations: Migration[]): ChainCheck {
  const files = new Map(migrations.map((migration) => [migration.version, migration]));
  const isFile = (row: AppliedMigration) => files.get(row.version)?.name === row.name;
  const of = (chain: ReadonlyArray<readonly [number, string]>) => {
    const names = new Map(chain);
    return applied.filter((row) => names.get(row.version) === row.name);
  };
  const last = (rows: AppliedMigration[]) => rows.reduce((a, b) => (b.version > a.version ? b : a));

  const first = of(FIRST_CHAIN).filter((row) => !isFile(row));
  if (first.length > 0) {
    const which = first.length === FIRST_CHAIN.length ? 'the first pre-release chain' : `part of the first pre-release chain (${first.length} of ${FIRST_CHAIN.length} files)`;
    throw new MigrationChainError(
      `this database was migrated by ${which}, ${fileName(1, 'init')}..${fileName(last(first).version, last(first).name)}, since folded twice into sql/001..009: nothing was applied; ${withOlderCode('npm run migrate -- --adopt-pre-release')}`,
    );
  }

  const second = of(SECOND_CHAIN);
  if (second.some((row) => !isFile(row))) {
    if (second.length < SECOND_CHAIN.length) {
      const upTo = last(second);
      throw new MigrationChainError(
        `this database was migrated by part of the second pre-release chain (up to ${fileName(upTo.version, upTo.name)}, ${second.length} of ${SECOND_CHAIN.length} files), since folded into sql/001..009: nothing was applied; ${withOlderCode('npm run migrate')}`,
      );
    }
    const folded = FOLDED_CHAIN.map(([version, name]) => {
      const migration = files.get(version);
      if (migration?.name !== name) throw new MigrationChainError(`${fileName(version, name)} is missing: cannot carry this database of the second pre-release chain over to the folded files`);
      return migration;
    });
    return {
      kind: 'carry-over',
      replaced: second.map((row) => row.version),
      folded,
      runs: folded.filter((migration) => CARRY_OVER_RUNS.includes(migration.version)),
    };
  }

  for (const row of applied) {
    const file = files.get(row.version);
    if (file && file.name !== row.name) {
      throw new MigrationChainError(
        `schema_migrations records version ${row.version} as "${row.name}" but sql/ holds ${fileName(file.version, file.name)}: this database was migrated by another chain of files; nothing was applied; migrate it with the code that made it, or recreate it`,
      );
    }
  }
  return { kind: 'current' };
}
