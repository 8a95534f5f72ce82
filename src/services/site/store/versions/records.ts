import { markdownTree } from '../../markdown/plugin-markdown.js';
import type { Check } from './manifest/checks.js';
import type { LauncherManifest } from './manifest/launcher-manifest.js';
import type { Permission } from './manifest/permissions.js';
import type { PackageEntry } from '../../image-host/package-answer.js';

// A plugin version as the API shows it (docs/api.md "Versions"), from a row of
// sql/queries/store/versions/*.sql.

export type VersionStatus = 'pending' | 'approved' | 'rejected' | 'withdrawn' | 'removed';

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
    // What pages show: the Markdown as a tree of safe elements (src/services/site/markdown).
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
