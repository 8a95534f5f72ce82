import { markdownTree } from '../markdown/plugin-markdown.js';
import type { PackageEntry } from './package-client.js';

// A plugin version as the API shows it (docs/api.md "Versions"), from a row of
// sql/queries/versions/*.sql.

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
}

/** In lists: {version, changelog, changelogTree, sha256, size, download, status, createdAt, entryCount}. */
export function versionRecord(row: VersionRow): Record<string, unknown> {
  return {
    version: row.version,
    changelog: row.changelog,
    // What pages show: the Markdown as a tree of safe elements (src/site/markdown).
    changelogTree: markdownTree(row.changelog),
    sha256: row.sha256,
    size: Number(row.size),
    download: row.download,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    entryCount: row.entry_count,
  };
}
