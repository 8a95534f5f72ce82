import { isObject } from '../../../lib/json-object.js';
import { AnswerShapeError } from './answer.js';

// What the image host reports about a package beside its hash and entries
// (docs/api.md "Packages", issue 31): the manifest it found or why there is none,
// what it found in the entries, and every file's SHA-256. Checked like any input:
// a report that breaks this shape is the image host failing (502), never trusted.

/** The plugin.json (else cwplugin.json) found, as found: `json` is not normalised. */
export interface FoundManifest {
  /** Its entry name: "plugin.json" or "Wrapper/plugin.json". */
  path: string;
  json: Record<string, unknown>;
}

export type Finding =
  | { code: 'secret'; file: string; kind: string }
  | { code: 'native-executable'; file: string; format: 'PE' | 'ELF' | 'Mach-O' };

export interface PackageFile {
  name: string;
  sha256: string;
}

export interface PackageReport {
  manifest: FoundManifest | null;
  /** Why there is no usable manifest, in words a person understands; null when there is one. */
  manifestProblem: string | null;
  findings: Finding[];
  files: PackageFile[];
}

const SHA256 = /^[0-9a-f]{64}$/;
const FORMATS = new Set(['PE', 'ELF', 'Mach-O']);
/** An entry name as the image host bounds it. */
const isName = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 4096;
const isShortText = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 200;

function finding(value: unknown): Finding {
  if (!isObject(value) || !isName(value.file)) throw new AnswerShapeError('a finding names no file');
  if (value.code === 'secret' && isShortText(value.kind)) return { code: 'secret', file: value.file, kind: value.kind };
  if (value.code === 'native-executable' && typeof value.format === 'string' && FORMATS.has(value.format)) {
    return { code: 'native-executable', file: value.file, format: value.format as 'PE' | 'ELF' | 'Mach-O' };
  }
  throw new AnswerShapeError('a finding is neither a secret nor a native executable');
}

/** The report's fields of `data`, the image host's package answer; `entryCount` bounds `files`. */
export function packageReportFrom(data: Record<string, unknown>, entryCount: number): PackageReport {
  const { manifest, manifestProblem, findings, files } = data;
  let found: FoundManifest | null = null;
  if (manifest !== null) {
    if (!isObject(manifest) || !isName(manifest.path) || !isObject(manifest.json)) throw new AnswerShapeError('data.manifest is not {path, json} or null');
    found = { path: manifest.path, json: manifest.json };
  }
  if (found === null ? typeof manifestProblem !== 'string' || manifestProblem.length === 0 || manifestProblem.length > 1000 : manifestProblem !== null) {
    throw new AnswerShapeError('data.manifestProblem is not the reason a missing manifest needs (or null beside one)');
  }
  if (!Array.isArray(findings) || findings.length > entryCount * 4) throw new AnswerShapeError('data.findings is not a list');
  if (!Array.isArray(files) || files.length > entryCount) throw new AnswerShapeError('data.files is not a list of at most entryCount files');
  const checkedFiles = files.map((file): PackageFile => {
    if (!isObject(file) || !isName(file.name) || typeof file.sha256 !== 'string' || !SHA256.test(file.sha256)) throw new AnswerShapeError('a file has no name or sha256');
    return { name: file.name, sha256: file.sha256 };
  });
  return { manifest: found, manifestProblem: found === null ? (manifestProblem as string) : null, findings: findings.map(finding), files: checkedFiles };
}
