// What the real launchers read from /api/info and /api/fastdownload, as a table, so
// that a LAUNCHER_CONFIG they cannot use is reported when it is loaded instead of
// being found out by users. The answers are still served as they are (their
// structure is the launchers' business); this only tells the operator, key by key.
//
// Read from the launchers' sources (docs/api.md, "Clients that read these answers"):
// - BloraLauncher (Dart) lib/tools/server_info.dart, BloraLauncherConfig.fromJson and
//   the classes under it: each field is `json[key] ?? default` assigned to a typed
//   field, so a missing key gets a default but a value of the wrong type throws, and
//   the launcher drops the whole answer (it polls every 5 s, lib/shell/main_shell.dart).
//   `List<String>.from(BLTips)` throws on any element that is not a string.
// - Bloret-Launcher (Python) modules/update.py: on Windows the updater downloads
//   `downloads.stable.windows.github` (else `.gitcode`), finds the entry of
//   `downloads.stable` holding that URL by walking it in order, reads the SHA-256
//   from that entry's `hashes` (64 hex digits, else it raises), and refuses an update
//   without one or over anything but https.
// - The beta fields are those the original server sent when the beta was enabled
//   (BloretCrew/Bloret-Launcher-New-Website server.js, /api/info).
// - Fast download: Bloret-Launcher modules/install.py `fetch_fastdownload_versions`
//   calls `entry.get("version")` / `entry.get("url")` on each element and clones the
//   URL with git; BloraLauncher lib/pages/download_page.dart reads `v['version']`.

import { isObject, own } from '../../../lib/json-object.js';

const BLORA = 'BloraLauncher lib/tools/server_info.dart';
const UPDATER = 'Bloret-Launcher modules/update.py';
const ORIGINAL_BETA = 'the beta shape of the original server (Bloret-Launcher-New-Website server.js)';
const FAST = 'Bloret-Launcher modules/install.py, BloraLauncher lib/pages/download_page.dart';

type Kind = 'string' | 'boolean' | 'object' | 'list of strings' | 'https URL' | 'SHA-256';

interface Rule {
  /** Dotted path in the /api/info answer. */
  key: string;
  kind: Kind;
  readBy: string;
  /** Checked only when `beta.enabled` is true. */
  betaOnly?: true;
}

const mirrorRules = (prefix: string, readBy: string, betaOnly?: true): Rule[] =>
  ['gitcode', 'github'].flatMap((mirror) => [
    { key: `${prefix}.${mirror}`, kind: 'object' as const, readBy, betaOnly },
    { key: `${prefix}.${mirror}.exe`, kind: 'string' as const, readBy, betaOnly },
    { key: `${prefix}.${mirror}.zip`, kind: 'string' as const, readBy, betaOnly },
  ]);

/** Parents come before their children: a child is not checked when its parent failed. */
export const INFO_RULES: readonly Rule[] = [
  { key: 'latestVersion', kind: 'string', readBy: BLORA },
  { key: 'description', kind: 'string', readBy: BLORA },
  { key: 'newVersionDescription', kind: 'string', readBy: BLORA },
  { key: 'beta', kind: 'object', readBy: BLORA },
  { key: 'beta.enabled', kind: 'boolean', readBy: BLORA },
  { key: 'beta.version', kind: 'string', readBy: ORIGINAL_BETA, betaOnly: true },
  { key: 'beta.versionName', kind: 'string', readBy: ORIGINAL_BETA, betaOnly: true },
  { key: 'beta.description', kind: 'string', readBy: ORIGINAL_BETA, betaOnly: true },
  { key: 'downloads', kind: 'object', readBy: BLORA },
  { key: 'downloads.stable', kind: 'object', readBy: BLORA },
  { key: 'downloads.stable.windows', kind: 'object', readBy: UPDATER },
  { key: 'downloads.stable.windows.github', kind: 'https URL', readBy: UPDATER },
  { key: 'downloads.stable.windows.gitcode', kind: 'https URL', readBy: UPDATER },
  { key: 'downloads.stable.windows.hashes', kind: 'object', readBy: UPDATER },
  { key: 'downloads.stable.windows.hashes.github', kind: 'SHA-256', readBy: UPDATER },
  { key: 'downloads.stable.windows.hashes.gitcode', kind: 'SHA-256', readBy: UPDATER },
  ...mirrorRules('downloads.stable', BLORA),
  { key: 'downloads.beta', kind: 'object', readBy: ORIGINAL_BETA, betaOnly: true },
  ...mirrorRules('downloads.beta', ORIGINAL_BETA, true),
  { key: 'BLTips', kind: 'list of strings', readBy: BLORA },
  { key: 'activity', kind: 'object', readBy: BLORA },
  { key: 'activity.show', kind: 'boolean', readBy: BLORA },
  ...['status', 'title', 'description', 'icon', 'time', 'link'].map((field) => ({ key: `activity.${field}`, kind: 'string' as const, readBy: BLORA })),
];

export interface ShapeProblem {
  key: string;
  /** What the launchers need there, in words (`a string`, `true or false`...). */
  expected: string;
  /** What the file has there, in words (`missing`, `a number`...). */
  found: string;
  readBy: string;
}

/** A file with thousands of bad entries must not flood the log. */
export const MAX_SHAPE_PROBLEMS = 50;

const SHA256 = /^[0-9a-fA-F]{64}$/;

/** Checks the served answers (after defaults such as BLTips → []) against what the launchers read. */
export function checkClientShape(info: Record<string, unknown>, fastdownload: { enabled: boolean; versions: unknown[] }): ShapeProblem[] {
  const problems: ShapeProblem[] = [];
  const failed = new Set<string>();
  const betaOn = isObject(info.beta) && info.beta.enabled === true;
  for (const rule of INFO_RULES) {
    if (rule.betaOnly && !betaOn) continue;
    const parent = rule.key.includes('.') ? rule.key.slice(0, rule.key.lastIndexOf('.')) : undefined;
    if (parent !== undefined && failed.has(parent)) {
      failed.add(rule.key);
      continue;
    }
    const value = valueAt(info, rule.key);
    const found = mismatch(rule.kind, value);
    if (found !== undefined) {
      failed.add(rule.key);
      problems.push({ key: rule.key, expected: EXPECTED[rule.kind], found, readBy: rule.readBy });
    }
  }
  if (!failed.has('downloads.stable.windows.github')) {
    const order = windowsOrderProblem(valueAt(info, 'downloads.stable') as Record<string, unknown>);
    if (order) problems.push(order);
  }
  if (fastdownload.enabled) {
    fastdownload.versions.forEach((entry, index) => {
      const at = `fastdownload.versions[${index}]`;
      if (!isObject(entry)) {
        problems.push({ key: at, expected: 'an object {version, url}', found: describe(entry), readBy: FAST });
        return;
      }
      for (const [field, kind] of [['version', 'string'], ['url', 'https URL']] as const) {
        const found = mismatch(kind, own(entry, field));
        if (found !== undefined) problems.push({ key: `${at}.${field}`, expected: EXPECTED[kind], found, readBy: FAST });
      }
    });
  }
  return problems.slice(0, MAX_SHAPE_PROBLEMS);
}

/**
 * The updater finds the hash in the first entry of downloads.stable (in file order)
 * that holds the URL it chose; an earlier entry with the same URL and no `hashes`
 * (a `github: {exe}` object repeating it, say) hides the hash and the update is refused.
 */
function windowsOrderProblem(stable: Record<string, unknown>): ShapeProblem | undefined {
  const windows = stable.windows as Record<string, unknown>;
  const chosen = windows.github;
  for (const [name, value] of Object.entries(stable)) {
    if (name === 'windows') return undefined;
    if (holdsString(value, chosen as string)) {
      return {
        key: 'downloads.stable.windows',
        expected: 'to come before any entry of downloads.stable holding the same URL',
        found: `after downloads.stable.${name}, which holds ${String(chosen)}`,
        readBy: UPDATER,
      };
    }
  }
  return undefined;
}

function holdsString(value: unknown, text: string): boolean {
  if (value === text) return true;
  return isObject(value) && Object.values(value).some((inner) => holdsString(inner, text));
}

const EXPECTED: Record<Kind, string> = {
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  'list of strings': 'a list of strings',
  'https URL': 'an https:// URL',
  'SHA-256': 'a SHA-256 of 64 hex digits',
};

/** Undefined when the value fits; otherwise what was found, in words. */
function mismatch(kind: Kind, value: unknown): string | undefined {
  switch (kind) {
    case 'string':
      return typeof value === 'string' ? undefined : describe(value);
    case 'boolean':
      return typeof value === 'boolean' ? undefined : describe(value);
    case 'object':
      return isObject(value) ? undefined : describe(value);
    case 'list of strings': {
      if (!Array.isArray(value)) return describe(value);
      const bad = value.findIndex((item) => typeof item !== 'string');
      return bad === -1 ? undefined : `a list with ${value[bad] === null ? 'null' : describe(value[bad])} at [${bad}]`;
    }
    case 'https URL':
      if (typeof value !== 'string') return describe(value);
      return /^https:\/\/[^\s/]/i.test(value) ? undefined : 'a string that is not an https:// URL';
    case 'SHA-256':
      if (typeof value !== 'string') return describe(value);
      return SHA256.test(value) ? undefined : 'a string that is not 64 hex digits';
  }
}

/** A JSON null counts as missing: the launchers treat both alike, and the served answer has null for an absent key. */
function describe(value: unknown): string {
  if (value === undefined || value === null) return 'missing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function valueAt(root: Record<string, unknown>, key: string): unknown {
  let value: unknown = root;
  for (const part of key.split('.')) {
    if (!isObject(value)) return undefined;
    value = own(value, part);
  }
  return value;
}
