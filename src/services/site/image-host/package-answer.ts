import { isObject } from '../../../lib/json-object.js';
import { packageUrl } from '../../../lib/package-names.js';
import { AnswerShapeError, successData } from './answer.js';
import { packageReportFrom, type PackageReport } from './package-report.js';

// What the image host's answers about a package must look like (docs/api.md
// "Packages"): an inspection (POST /api/packages/inspect) reports the package's
// hash, size, entry count and contents (package-report.ts); an upload (POST
// /api/packages) reports the same of the file it now keeps, with its path and
// its first 1,000 entries.

/** One file entry as the image host listed it. */
export interface PackageEntry {
  name: string;
  size: number;
  crc32: number;
}

/** A package as the image host inspected it, kept or not. */
export interface InspectedPackage {
  sha256: string;
  size: number;
  entryCount: number;
  /** Its manifest, findings and every file's hash (issue 31). */
  report: PackageReport;
}

/** A package the image host keeps; `download` absolute under IMAGE_HOST_PUBLIC_URL. */
export interface StoredPackage extends InspectedPackage {
  download: string;
  entries: PackageEntry[];
}

const SHA256 = /^[0-9a-f]{64}$/;
const PACKAGE_PATH = /^\/pkg\/[0-9a-f]{64}\/[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.zip$/;
/** The entries an upload answer lists with their sizes (the image host's cap). */
const LISTED_ENTRIES = 1000;

/** `{success: true, data: {sha256, size, entryCount, manifest, manifestProblem, findings, files}}`. */
export function inspectedPackageFrom(answer: unknown): InspectedPackage {
  const data = successData(answer);
  const { sha256, size, entryCount } = data;
  if (typeof sha256 !== 'string' || !SHA256.test(sha256)) throw new AnswerShapeError('data.sha256 is not 64 hex digits');
  if (!Number.isSafeInteger(size) || (size as number) <= 0) throw new AnswerShapeError('data.size is not a positive whole number');
  if (!Number.isSafeInteger(entryCount) || (entryCount as number) <= 0) throw new AnswerShapeError('data.entryCount is not a positive whole number');
  return { sha256, size: size as number, entryCount: entryCount as number, report: packageReportFrom(data, entryCount as number) };
}

/** The inspection's fields and `url`, `entries` besides. */
export function storedPackageFrom(answer: unknown, publicBase: string): StoredPackage {
  const inspected = inspectedPackageFrom(answer);
  const { url, entries } = successData(answer);
  if (typeof url !== 'string' || !PACKAGE_PATH.test(url) || !url.startsWith(`/pkg/${inspected.sha256}/`)) {
    throw new AnswerShapeError('data.url is not this package\'s path');
  }
  if (!Array.isArray(entries) || entries.length > LISTED_ENTRIES) throw new AnswerShapeError('data.entries is not a list of at most 1,000');
  const checked = entries.map((entry): PackageEntry => {
    if (!isObject(entry) || typeof entry.name !== 'string' || entry.name.length > 4096) throw new AnswerShapeError('an entry has no name');
    if (!Number.isSafeInteger(entry.size) || (entry.size as number) < 0) throw new AnswerShapeError('an entry has no size');
    if (!Number.isSafeInteger(entry.crc32) || (entry.crc32 as number) < 0) throw new AnswerShapeError('an entry has no crc32');
    return { name: entry.name, size: entry.size as number, crc32: entry.crc32 as number };
  });
  return { ...inspected, download: publicBase + url, entries: checked };
}

/**
 * `stored` with its download named `name`: the relay starts before a form's
 * `version` field may have come, under the plugin's id alone, and the hash alone
 * selects the file, so the version's download takes its full name here.
 */
export function namedPackage(stored: StoredPackage, name: string): StoredPackage {
  const at = stored.download.indexOf(`/pkg/${stored.sha256}/`);
  return { ...stored, download: stored.download.slice(0, at) + packageUrl(stored.sha256, name) };
}
