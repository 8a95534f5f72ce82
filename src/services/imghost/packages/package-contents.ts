import { createEntryReader, type EntryReader, type EntryReading } from './entry-reader.js';
import { placeManifest } from './manifest-place.js';
import { MAX_MANIFEST_BYTES, readManifest, type ManifestJson } from './manifest-read.js';
import type { ExecutableFormat } from './native-executable.js';
import { SCAN_BYTES_PER_PACKAGE, type ScanBudget } from './secret-scanner.js';

// What the image host reports about a package's contents (issue 31): its
// manifest or why there is none, what the checks found, and every file's
// SHA-256. It reports and never refuses: the site decides what to enforce.

export type Finding =
  | { code: 'secret'; file: string; kind: string }
  | { code: 'native-executable'; file: string; format: ExecutableFormat };

export interface PackageContents {
  manifest: { path: string; json: ManifestJson } | null;
  /** Why `manifest` is null, for a person; null when it is set. */
  manifestProblem: string | null;
  /** In central directory order; an entry's native format before its secrets. */
  findings: Finding[];
  /** Every file entry (folders left out), in central directory order. */
  files: Array<{ name: string; sha256: string }>;
}

export interface ContentsEntry {
  name: string;
  /** Its place in the central directory. */
  order: number;
  /** Its uncompressed size, already checked against the central directory. */
  size: number;
}

/**
 * `entries` in central directory order. Each file entry gets a reader for its
 * bytes (`read`), in whatever order the inspector inflates them; `result` once
 * all are read.
 */
export function createContentsReader(entries: readonly ContentsEntry[]) {
  const place = placeManifest(entries.map((entry) => entry.name));
  const manifestPath = 'path' in place ? place.path : null;
  const budget: ScanBudget = { left: SCAN_BYTES_PER_PACKAGE };
  const readings = new Map<number, EntryReading>();

  return {
    /** Null for a folder, which has no bytes to read. */
    read(entry: ContentsEntry): EntryReader | null {
      if (entry.name.endsWith('/')) return null;
      const keep = entry.name === manifestPath && entry.size <= MAX_MANIFEST_BYTES ? MAX_MANIFEST_BYTES : 0;
      const reader = createEntryReader(budget, keep);
      return {
        update: (chunk) => reader.update(chunk),
        end: () => {
          const reading = reader.end();
          readings.set(entry.order, reading);
          return reading;
        },
      };
    },

    result(): PackageContents {
      const files: PackageContents['files'] = [];
      const findings: Finding[] = [];
      let manifest: PackageContents['manifest'] = null;
      let manifestProblem = 'problem' in place ? place.problem : null;
      for (const entry of entries) {
        const reading = readings.get(entry.order);
        if (!reading) continue;
        files.push({ name: entry.name, sha256: reading.sha256 });
        if (reading.executable) findings.push({ code: 'native-executable', file: entry.name, format: reading.executable });
        for (const kind of reading.secrets) findings.push({ code: 'secret', file: entry.name, kind });
        if (entry.name === manifestPath) {
          const manifestReading = readManifest(entry.name, entry.size, reading.bytes);
          if ('json' in manifestReading) manifest = { path: entry.name, json: manifestReading.json };
          else manifestProblem = manifestReading.problem;
        }
      }
      return { manifest, manifestProblem, findings, files };
    },
  };
}
