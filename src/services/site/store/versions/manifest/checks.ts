import type { EntryKind } from './entry.js';
import { entryKindWords } from './entry.js';
import type { Finding } from '../../../image-host/package-report.js';
import type { Permission } from './permissions.js';

// The checks a version gets before review (issue 31, "Checks before review"), from
// what is known of it: a `block` refuses the upload (and keeps a pending version
// from going live), a `warn` is for the reviewer, who acknowledges every warning by
// approving the revision that carries them. Pure: the inputs are gathered by
// check-inputs.ts, at upload, at a removal and by npm run recheck.

export type CheckLevel = 'warn' | 'block';

export interface Check {
  code: CheckCode;
  level: CheckLevel;
  message: string;
  file?: string;
}

export type CheckCode =
  | 'secret'
  | 'blocked-file'
  | 'native-executable'
  | 'high-risk-permission'
  | 'new-permission'
  | 'similar-name'
  | 'entry-kind-changed';

export const LEVELS: Record<CheckCode, CheckLevel> = {
  secret: 'block',
  'blocked-file': 'block',
  'native-executable': 'warn',
  'high-risk-permission': 'warn',
  'new-permission': 'warn',
  'similar-name': 'warn',
  'entry-kind-changed': 'warn',
};

/** The version the plugin serves, as far as it is known (null: none approved yet). */
export interface LiveVersion {
  /** Its permission ids: its manifest's, or the plugin's own field for an outside link or an older version. */
  permissions: string[];
  /** null when unknown (an outside link, a version from before manifests were read). */
  entryKind: EntryKind | null;
}

/** An approved plugin (of another author) whose name or id is close to this one's. */
export interface SimilarPlugin {
  id: string;
  name: string;
  /** Which of this version's, its manifest's name or the plugin's id, is close. */
  close: 'name' | 'id';
  /** What of this version was compared. */
  mine: string;
}

export interface CheckInputs {
  findings: Finding[];
  /** This version's files whose bytes are blocked (a package removed for malware had them). */
  blockedFiles: string[];
  permissions: Permission[];
  entryKind: EntryKind;
  live: LiveVersion | null;
  similar: SimilarPlugin[];
}

const quoted = (value: string): string => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);

export function computeChecks(inputs: CheckInputs): Check[] {
  const checks: Check[] = [];
  const add = (code: CheckCode, message: string, file?: string) => checks.push(file === undefined ? { code, level: LEVELS[code], message } : { code, level: LEVELS[code], message, file });
  for (const finding of inputs.findings) {
    // The kind and the file, never the secret: this message is shown and stored.
    if (finding.code === 'secret') add('secret', `${quoted(finding.file)} holds what looks like a ${finding.kind}; remove it from the package, and revoke it`, finding.file);
  }
  for (const file of inputs.blockedFiles) {
    add('blocked-file', `${quoted(file)} is byte for byte a file of a package an administrator removed as malware`, file);
  }
  for (const finding of inputs.findings) {
    if (finding.code === 'native-executable') add('native-executable', `${quoted(finding.file)} is a native ${finding.format} executable`, finding.file);
  }
  for (const permission of inputs.permissions) {
    if (permission.risk === 'high') add('high-risk-permission', `Asks for ${permission.id}, a high-risk permission the launcher grants on install`);
  }
  if (inputs.live !== null) {
    const had = new Set(inputs.live.permissions);
    for (const permission of inputs.permissions) {
      if (!had.has(permission.id)) add('new-permission', `Asks for ${permission.id}, which the live version does not have`);
    }
    if (inputs.live.entryKind !== null && inputs.live.entryKind !== inputs.entryKind) {
      add('entry-kind-changed', `Runs ${entryKindWords(inputs.entryKind)}, where the live version runs ${entryKindWords(inputs.live.entryKind)}`);
    }
  }
  for (const plugin of inputs.similar) {
    add('similar-name', `The ${plugin.close} ${quoted(plugin.mine)} is close to the approved plugin ${quoted(plugin.name)} (${plugin.id})`);
  }
  return checks;
}

export const isBlocked = (checks: readonly Check[]): boolean => checks.some((check) => check.level === 'block');
export const warningCount = (checks: readonly Check[]): number => checks.filter((check) => check.level === 'warn').length;
