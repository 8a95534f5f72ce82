import type { Migration } from './migration.js';

// Before the first release (1.0.0) the schema grew through migrations that
// redefined each other, folded three times since into files that hold only final
// definitions:
//
//   the first chain, sql/001_init..071 (28 files), into sql/001_users..007_store_generation;
//   the second chain, those seven files and the ones appended after them,
//   sql/100_plugin_revisions..283_removed_packages (19 files), into sql/001..009:
//   the pre-release fold;
//   the pre-release fold and the four files appended to it, sql/284..287, into the
//   released sql/001..009 (sql/released.sha256).
//
// A database of the whole second chain, or of the pre-release fold with any of
// 284..287, is carried over at once, before anything else is applied and in one
// transaction (migrate.ts), to the schema a new database gets
// (scripts/check-folded-schema.ts proves it). The four files appended to the
// pre-release fold are kept, as they were, in sql/carry-over/, and each such
// database runs those it lacks. The second chain's four functions that bumped the
// generations give way to the one of sql/009 (sql/carry-over/old-generation-bumps.sql,
// then stand-in-bump.sql, then sql/009's text); the pre-release fold's database
// gets the last names of 286's triggers (package-check-trigger-names.sql). Then
// schema_migrations records the released files instead. A database of the first
// chain, or of part of the second or of the pre-release fold, lacks migrations the
// released files hold but this code no longer has: it is refused before anything
// is applied, with one line saying what to do.

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

/**
 * The pre-release fold, sql/001..009 as they were before 284..287 were folded into
 * them, with the SHA-256 of each text the file had meanwhile (comments were edited
 * in place): a row with one of them that the released file does not have tells
 * such a database from one of the released files (the names are the same).
 */
export const PRE_RELEASE_FOLD: ReadonlyArray<readonly [number, string, readonly string[]]> = [
  [1, 'users', ['d93f5e47c13e3763638839b51a2856d184233faa16221f5290bfda4b028fc2bf']],
  [2, 'plugins', ['6158edfb99d38f919b8fd6c99c8f7f4d7fc84657bf6c4e7586e875457cde7e8a', 'eab34db7a48b1ade3be8a2512008dd1e686d3bca93c8ee12e189093d978a3851']],
  [3, 'ratings', ['db784c8b1d0f352bf3a94cef3280682449bf55499d5884b4cc7bbf203480ff5c', 'bfac34ddcd3cd0b5ddddb57c7647550b8ce4fb0e7fb26cd7a87b1196dd98141b']],
  [4, 'search', ['fb6e98dc8236dd8ffed2dac74c341f171237b01a3b374ceca72a9791d9774345']],
  [5, 'related', ['be6c3d6857b957a3e76d6ea14623c609214bb02d6df03d20592cd3b21bf431e8']],
  [6, 'tokens_audit_reports_notifications_webhooks', ['3650b4946bc881c6ea2a483bff381183209200a907806a8b6b6b07b2ca2cd477', 'c9a07b2ceab73d3a3695285feba628c69e7d33178b8673e438c7d95818c3e686']],
  [7, 'versions', ['04e2fb7fd5826986ff96e1caf9c25e8047ed45e0d796d96bb1652f80b10b5078', '56cc3e706aeed330d6ea87059aad5f3d87a4252cb5617df70d9f60b4be4bc6f0']],
  [8, 'generations', ['ab19240bdc39aea775383de4d441db30f840744ff24e6713235a5187bb0ba80c', 'db875699dd3346661c1adc49389ba66e8800ae6ff98f6c7f1f461555bf7509aa']],
  [9, 'generation_bumps', ['c6042fce13ed5edcafade3fc9469acccb211a7b7ba8a28f38c0e2c487e6f529b']],
];

/** The files appended to the pre-release fold, in order; sql/carry-over/ keeps their text. */
export const APPENDED_TO_FOLD: ReadonlyArray<readonly [number, string]> = [
  [284, 'version_manifests'], [285, 'launcher_reads'], [286, 'package_checks'], [287, 'live_entry_kind'],
];

/** The released files, which replace every chain above. */
export const RELEASED_FILES: ReadonlyArray<readonly [number, string]> = PRE_RELEASE_FOLD.map(([version, name]) => [version, name] as const);

/**
 * The numbers up to this one belong to the pre-release history (schema_migrations
 * of a database not yet carried over still holds them): a migration appended
 * after the release is numbered after it.
 */
export const LAST_PRE_RELEASE_NUMBER = 287;

/** The last file of the second chain: a checkout holding it migrates a database of either of the first two chains. */
const LAST_OF_SECOND = 'sql/283_removed_packages.sql';
/** The last file appended to the pre-release fold: a checkout holding it in sql/ migrates a database of the pre-release fold. */
const LAST_OF_FOLD = 'sql/287_live_entry_kind.sql';

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
  /** The file's SHA-256 when it ran; tells the pre-release fold from the released files. */
  checksum?: string;
}

/**
 * One statement list the carry-over runs: a file of sql/carry-over/ by name, or a
 * released migration's text.
 */
export type CarryOverStep = { carryOver: string } | { migration: Migration };

export type ChainCheck =
  | { kind: 'current' }
  /**
   * A database of the whole second chain or of the pre-release fold: `steps` run,
   * then its rows `replaced` go from schema_migrations and `released` are recorded.
   */
  | { kind: 'carry-over'; from: 'second chain' | 'pre-release fold'; replaced: number[]; released: Migration[]; steps: CarryOverStep[] };

/** What to do with a database this code cannot carry over: `command` is what the older checkout runs. */
const withOlderCode = (lastFile: string, command: string) =>
  `migrate it first with a checkout of the commit before the fold (the parent of \`git rev-list -1 HEAD -- ${lastFile}\`: \`${command}\` there), then start this version; or dump your data (pg_dump --data-only), drop and recreate the database, start once to create the schema, then restore the data`;

/**
 * Compares what schema_migrations records with the files. A database of the whole
 * second chain or of the pre-release fold is to be carried over; one of the first
 * chain, of part of the second or of the pre-release fold, or of any chain whose
 * file at some version has another name, is refused (MigrationChainError).
 */
export function checkChain(applied: AppliedMigration[], migrations: Migration[]): ChainCheck {
  const files = new Map(migrations.map((migration) => [migration.version, migration]));
  const isFile = (row: AppliedMigration) => files.get(row.version)?.name === row.name;
  const of = (chain: ReadonlyArray<readonly [number, string, ...unknown[]]>) => {
    const names = new Map(chain.map(([version, name]) => [version, name]));
    return applied.filter((row) => names.get(row.version) === row.name);
  };
  const last = (rows: AppliedMigration[]) => rows.reduce((a, b) => (b.version > a.version ? b : a));
  const released = () => RELEASED_FILES.map(([version, name]) => {
    const migration = files.get(version);
    if (migration?.name !== name) throw new MigrationChainError(`${fileName(version, name)} is missing: cannot carry this database of the pre-release migrations over to the released files`);
    return migration;
  });
  const appended = of(APPENDED_TO_FOLD);
  const lacking = APPENDED_TO_FOLD.filter(([version]) => !appended.some((row) => row.version === version))
    .map(([version, name]): CarryOverStep => ({ carryOver: `${String(version).padStart(3, '0')}_${name}.sql` }));

  const first = of(FIRST_CHAIN).filter((row) => !isFile(row));
  if (first.length > 0) {
    const which = first.length === FIRST_CHAIN.length ? 'the first pre-release chain' : `part of the first pre-release chain (${first.length} of ${FIRST_CHAIN.length} files)`;
    throw new MigrationChainError(
      `this database was migrated by ${which}, ${fileName(1, 'init')}..${fileName(last(first).version, last(first).name)}, since folded three times into sql/001..009: nothing was applied; ${withOlderCode(LAST_OF_SECOND, 'npm run migrate -- --adopt-pre-release')}`,
    );
  }

  const second = of(SECOND_CHAIN);
  if (second.some((row) => !isFile(row))) {
    if (second.length < SECOND_CHAIN.length) {
      const upTo = last(second);
      throw new MigrationChainError(
        `this database was migrated by part of the second pre-release chain (up to ${fileName(upTo.version, upTo.name)}, ${second.length} of ${SECOND_CHAIN.length} files), since folded into sql/001..009: nothing was applied; ${withOlderCode(LAST_OF_SECOND, 'npm run migrate')}`,
      );
    }
    const files = released();
    return {
      kind: 'carry-over',
      from: 'second chain',
      replaced: [...second, ...appended].map((row) => row.version),
      released: files,
      steps: [{ carryOver: 'old-generation-bumps.sql' }, ...lacking, { carryOver: 'stand-in-bump.sql' }, { migration: files.find((m) => m.name === 'generation_bumps')! }],
    };
  }

  const foldSums = new Map(PRE_RELEASE_FOLD.map(([version, , checksums]) => [version, checksums]));
  const ofFold = of(PRE_RELEASE_FOLD);
  const changedSinceFold = ofFold.some((row) => row.checksum !== undefined && foldSums.get(row.version)!.includes(row.checksum)
    && row.checksum !== files.get(row.version)?.checksum);
  if (changedSinceFold || appended.length > 0) {
    if (ofFold.length < PRE_RELEASE_FOLD.length) {
      const upTo = ofFold.length ? fileName(last(ofFold).version, last(ofFold).name) : 'none of them';
      throw new MigrationChainError(
        `this database was migrated by part of the pre-release fold (up to ${upTo}, ${ofFold.length} of ${PRE_RELEASE_FOLD.length} files), since folded with ${APPENDED_TO_FOLD.length} files appended to it into the released sql/001..009: nothing was applied; ${withOlderCode(LAST_OF_FOLD, 'npm run migrate')}`,
      );
    }
    return {
      kind: 'carry-over',
      from: 'pre-release fold',
      replaced: [...ofFold, ...appended].map((row) => row.version),
      released: released(),
      steps: [...lacking, { carryOver: 'package-check-trigger-names.sql' }],
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
