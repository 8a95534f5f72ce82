import type { Migration } from './migrate.js';

// Before the first release the schema grew through 28 migrations, sql/001_init to
// sql/071_plugin_search_sync_cheap_updates, that redefined each other. They were
// folded into sql/001_users..007_store_generation, which hold only the final
// definitions: a database migrated by the whole old chain has exactly the schema
// the folded files make (scripts/check-folded-schema.ts shows it). Its
// schema_migrations still names the old files, so the folded ones would be applied
// on top of it and fail half-way; such a database is recognised before anything
// is applied and refused with one line saying what to do, or, when asked
// (`npm run migrate -- --adopt-pre-release`), recorded as the folded chain.

/** version and name of each file of the pre-release chain, in order. */
export const PRE_RELEASE_CHAIN: ReadonlyArray<readonly [number, string]> = [
  [1, 'init'], [2, 'rate_limits'], [3, 'admin_pins'], [10, 'plugins'], [11, 'plugin_ratings'],
  [12, 'plugin_summaries'], [13, 'plugin_status_counts'], [14, 'plugin_search_fields'], [15, 'plugin_tags_lower'],
  [16, 'plugin_status_counts_bulk'], [17, 'plugin_search_words'], [20, 'plugin_tag_counts'], [21, 'plugin_related'],
  [22, 'plugin_related_rows'], [30, 'pending_updates_queue'], [31, 'api_tokens'], [40, 'plugin_install_days'],
  [41, 'audit_log'], [42, 'reports'], [43, 'notifications'], [44, 'webhooks'], [45, 'audit_token_targets'],
  [50, 'store_generation'], [60, 'plugin_search'], [61, 'plugin_search_tier'], [62, 'plugin_search_sync'],
  [70, 'plugin_related_one_loop'], [71, 'plugin_search_sync_cheap_updates'],
];

/** The files that replace the whole pre-release chain. */
export const FOLDED_CHAIN: ReadonlyArray<readonly [number, string]> = [
  [1, 'users'], [2, 'plugins'], [3, 'ratings'], [4, 'search'], [5, 'related'],
  [6, 'tokens_audit_reports_notifications_webhooks'], [7, 'store_generation'],
];

export const ADOPT_FLAG = '--adopt-pre-release';

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
  /** The whole pre-release chain, to be recorded as the folded one (adopt was asked). */
  | { kind: 'adopt'; oldVersions: number[]; folded: Migration[] };

/**
 * Compares what schema_migrations records with the files. A database migrated by
 * the pre-release chain, or by any chain whose file at some version has another
 * name, is refused (MigrationChainError) unless it is the whole pre-release chain
 * and `adopt` is set.
 */
export function checkChain(applied: AppliedMigration[], migrations: Migration[], adopt: boolean): ChainCheck {
  const old = new Map(PRE_RELEASE_CHAIN.map(([version, name]) => [version, name]));
  const files = new Map(migrations.map((migration) => [migration.version, migration]));
  const fromOldChain = applied.filter((row) => old.get(row.version) === row.name && files.get(row.version)?.name !== row.name);
  if (fromOldChain.length > 0) {
    const complete = fromOldChain.length === PRE_RELEASE_CHAIN.length;
    const last = fromOldChain.reduce((a, b) => (b.version > a.version ? b : a));
    const what = complete
      ? `this database was migrated by the pre-release chain ${fileName(1, 'init')}..${fileName(last.version, last.name)}, since folded into sql/001..007 with the same schema`
      : `this database was migrated by part of the pre-release chain (up to ${fileName(last.version, last.name)}, ${fromOldChain.length} of ${PRE_RELEASE_CHAIN.length} files), since folded into sql/001..007`;
    if (!complete) {
      throw new MigrationChainError(`${what}: nothing was applied; dump your data (pg_dump --data-only), drop and recreate the database, start once to create the schema, then restore the data`);
    }
    if (!adopt) {
      throw new MigrationChainError(`${what}: nothing was applied; run \`npm run migrate -- ${ADOPT_FLAG}\` once to record it as the folded chain (no table changes), or dump your data, recreate the database and restore it`);
    }
    const folded = FOLDED_CHAIN.map(([version, name]) => {
      const migration = files.get(version);
      if (migration?.name !== name) throw new MigrationChainError(`${fileName(version, name)} is missing: cannot record the pre-release chain as the folded one`);
      return migration;
    });
    return { kind: 'adopt', oldVersions: fromOldChain.map((row) => row.version), folded };
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
