import type { Sql } from '../../../../db/pool.js';
import { runNamed } from '../../../../db/queries.js';
import { HttpError } from '../../../../http/errors.js';
import { isBlocked } from '../versions/manifest/checks.js';
import { readManifest } from '../versions/manifest/launcher-manifest.js';
import { blockedAmong, checkVersion } from '../versions/manifest/version-checks.js';
import type { InspectedPackage } from '../../image-host/package-answer.js';

// A fetched package goes through the same manifest rules and checks as a hosted
// version (versions/manifest/, issue 31): its plugin.json read as the launcher
// reads it (refused when there is none usable, or it names another plugin), then
// the checks (secrets, files of packages removed as malware, native executables,
// permissions, names close to other plugins'); a check of level `block` refuses it.

export interface RulesVerdict {
  /** Why the package is refused; null when it passes. */
  refusal: string | null;
  /** The manifest as the launcher reads it (normalised), or null when there is none usable. */
  manifest: Record<string, unknown> | null;
  /** [{code, level, message, file?}], as a version's. */
  checks: Array<Record<string, unknown>>;
}

/** Run in the transaction that records the result (the blocklist is held while it is read). */
export async function applyPackageRules(t: Sql, plugin: { id: string; submitterId: string }, inspected: InspectedPackage): Promise<RulesVerdict> {
  // Checked when the image host answered (image-host/package-answer.ts): an answer of another shape never gets here.
  const { report } = inspected;
  let read;
  try {
    read = readManifest(report, plugin.id);
  } catch (error) {
    // The manifest rules' refusal (400 on `file` for an upload): here, the reason.
    if (error instanceof HttpError) return { refusal: error.message, manifest: null, checks: [] };
    throw error;
  }
  await runNamed(t, 'store/versions/lock-blocklist-shared', {});
  const checked = await checkVersion(t, plugin, read, report.findings, await blockedAmong(t, report.files));
  const blocking = checked.checks.find((check) => check.level === 'block');
  return {
    refusal: isBlocked(checked.checks) ? (blocking?.message ?? 'A check blocks this package') : null,
    manifest: checked.manifest as unknown as Record<string, unknown>,
    checks: checked.checks as unknown as Array<Record<string, unknown>>,
  };
}
