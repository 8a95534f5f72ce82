import type { StoreVersionsFindVersionRow } from '../../../../db/query-rows.js';
import { markdownTree } from '../markdown/plugin-markdown.js';
import type { Check } from './manifest/checks.js';
import type { LauncherManifest } from './manifest/launcher-manifest.js';
import type { Permission } from './manifest/permissions.js';
import type { PackageEntry } from '../../image-host/package-answer.js';

// A plugin version as the API shows it (docs/api.md "Versions"), from a row of
// sql/queries/store/versions/*.sql.

export type VersionStatus = 'pending' | 'approved' | 'rejected' | 'withdrawn' | 'removed';
const VERSION_STATUSES: readonly string[] = ['pending', 'approved', 'rejected', 'withdrawn', 'removed'] satisfies VersionStatus[];

/** A plugin_versions.status as PostgreSQL answers it (text; the domain plugin_version_status of sql/007_versions.sql allows these five). */
export function versionStatusOf(status: string): VersionStatus {
  if (VERSION_STATUSES.includes(status)) return status as VersionStatus;
  throw new Error(`version status ${JSON.stringify(status)} is none of ${VERSION_STATUSES.join(', ')}`);
}

/**
 * A row of a version query as PostgreSQL describes it: lists answer the columns
 * without the package's JSON, a version or package all of them.
 */
type DescribedVersionRow = Omit<StoreVersionsFindVersionRow, 'files' | 'manifest' | 'permissions' | 'checks' | 'entry_kind'> &
  Partial<Pick<StoreVersionsFindVersionRow, 'files' | 'manifest' | 'permissions' | 'checks' | 'entry_kind'>>;

/** The version of a described row: its status checked, its JSON columns typed as the upload wrote them (sql/007_versions.sql). */
export function versionRowOf(row: DescribedVersionRow): VersionRow {
  const { files, manifest, permissions, checks, status, ...columns } = row;
  return {
    ...columns,
    status: versionStatusOf(status),
    ...(files === undefined ? {} : { files: files as PackageEntry[] }),
    ...(manifest === undefined ? {} : { manifest: manifest as LauncherManifest | null }),
    ...(permissions === undefined ? {} : { permissions: permissions as Permission[] }),
    ...(checks === undefined ? {} : { checks: checks as Check[] }),
  };
}

export interface VersionRow {
  version: string;
  changelog: string;
  sha256: string;
  /** bigint as text. */
  size: string;
  download: string;
  status: VersionStatus;
  created_at: Date;
  entry_count: number;
  files?: PackageEntry[];
  /** sql/007; null for versions uploaded before manifests were read. */
  manifest?: LauncherManifest | null;
  permissions?: Permission[];
  checks?: Check[];
  entry_kind?: string | null;
}

/** In lists: {version, changelog, changelogTree, sha256, size, download, status, createdAt, entryCount}. */
export function versionRecord(row: VersionRow): Record<string, unknown> {
  return {
    version: row.version,
    changelog: row.changelog,
    // What pages show: the Markdown as a tree of safe elements (src/services/site/store/markdown).
    changelogTree: markdownTree(row.changelog),
    sha256: row.sha256,
    size: Number(row.size),
    download: row.download,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    entryCount: row.entry_count,
  };
}

/**
 * For the version's author and administrators (issue 31): also what its package
 * says, {manifest, permissions, entryKind, checks, warningCount}; `manifest` and
 * `entryKind` null for a version uploaded before manifests were read.
 */
export function ownVersionRecord(row: VersionRow): Record<string, unknown> {
  const checks = row.checks ?? [];
  return {
    ...versionRecord(row),
    manifest: row.manifest ?? null,
    permissions: row.permissions ?? [],
    entryKind: row.entry_kind ?? null,
    checks,
    warningCount: checks.filter((check) => check.level === 'warn').length,
  };
}
