// What LAUNCHER_CONFIG means. Pure functions from the file's bytes to the two
// answers, so the rules can be tested as a table without a server.
//
// Rules (docs/api.md, "Launcher info"):
// - The file is UTF-8 JSON (a leading BOM is allowed: Windows editors write one)
//   whose top level is an object. Anything else is refused as a whole.
// - /api/info serves exactly the seven keys below, nothing else from the file, so
//   notes or secrets kept beside them never leak. Values are passed through as
//   they are: their structure is the launcher's business.
// - Legacy names (BLLatest, Description, BLNewVersionDescription, Beta) are read
//   when the new name is absent or null: the new name wins when both hold a value.
// - A key with no value under either name is served as null, so a launcher always
//   finds every field; except BLTips, served as [] (as the original server did:
//   launchers iterate it).
// - What the real launchers need inside these values (client-shape.ts) is checked
//   and reported key by key for the log; the file is served all the same.
// - `fastdownload` is well-formed when it is an object with a boolean `enabled` and
//   `versions` that is an array (or absent: []). Anything else (not an object,
//   `enabled` missing or not a boolean, `versions` not an array) counts as absent,
//   i.e. {enabled: false, versions: []}, with a warning for the operator. Only
//   `enabled` and `versions` are served.
// - `translations` holds per-language texts served by /api/info?lang= (see
//   translations.ts); a malformed part is ignored with a warning.

import { isObject, own } from '../../../lib/json-object.js';
import { checkClientShape, type ShapeProblem } from './client-shape.js';
import { readTranslations } from './translations.js';

export const INFO_FIELDS: ReadonlyArray<{ name: string; legacy?: string; absent?: () => unknown }> = [
  { name: 'latestVersion', legacy: 'BLLatest' },
  { name: 'description', legacy: 'Description' },
  { name: 'newVersionDescription', legacy: 'BLNewVersionDescription' },
  { name: 'beta', legacy: 'Beta' },
  { name: 'downloads' },
  // A missing BLTips is served as [] (launchers iterate it).
  { name: 'BLTips', absent: () => [] },
  { name: 'activity' },
];

export interface FastDownload {
  enabled: boolean;
  versions: unknown[];
}

export const FASTDOWNLOAD_ABSENT: FastDownload = Object.freeze({ enabled: false, versions: [] as unknown[] });

export interface LauncherDocument {
  /** The seven info fields, in INFO_FIELDS order, each a value or null. */
  info: Record<string, unknown>;
  fastdownload: FastDownload;
  /** The info fields in each language the file translates, keyed by lower-case tag. */
  translations: Map<string, Record<string, unknown>>;
  /** Parts of the file that were ignored, for the log. */
  warnings: string[];
  /** Keys the launchers read that are missing or of the wrong type (served anyway), for the log. */
  clientProblems: ShapeProblem[];
}

export type ParseResult = { ok: true; document: LauncherDocument } | { ok: false; reason: string };

// fatal: invalid UTF-8 is refused rather than silently turned into U+FFFD in a
// version string. A leading BOM is dropped by TextDecoder itself.
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function parseLauncherDocument(bytes: Uint8Array): ParseResult {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reason: 'not valid UTF-8' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not valid JSON: ${(error as Error).message}` };
  }
  if (!isObject(value)) return { ok: false, reason: 'the top level is not a JSON object' };

  const info: Record<string, unknown> = {};
  for (const field of INFO_FIELDS) {
    info[field.name] = own(value, field.name) ?? (field.legacy ? own(value, field.legacy) : undefined) ?? field.absent?.() ?? null;
  }
  const warnings: string[] = [];
  const fastdownload = readFastdownload(own(value, 'fastdownload'), warnings);
  const translations = readTranslations(own(value, 'translations'), info, warnings);
  return { ok: true, document: { info, fastdownload, translations, warnings, clientProblems: checkClientShape(info, fastdownload) } };
}

function readFastdownload(value: unknown, warnings: string[]): FastDownload {
  if (value === undefined || value === null) return FASTDOWNLOAD_ABSENT;
  if (!isObject(value)) {
    warnings.push('fastdownload is not an object: served as disabled');
    return FASTDOWNLOAD_ABSENT;
  }
  const enabled = own(value, 'enabled');
  if (typeof enabled !== 'boolean') {
    warnings.push('fastdownload.enabled is not true or false: served as disabled');
    return FASTDOWNLOAD_ABSENT;
  }
  const versions = own(value, 'versions') ?? [];
  if (!Array.isArray(versions)) {
    warnings.push('fastdownload.versions is not an array: served as disabled');
    return FASTDOWNLOAD_ABSENT;
  }
  return { enabled, versions };
}
