import type { Sql } from '../../../../../db/pool.js';
import { inTransaction, runNamed } from '../../../../../db/queries.js';
import type { Check } from './checks.js';
import { lockPlugin } from '../../plugin-state.js';
import { readStoredVersion, recheckStored } from './version-checks.js';

// npm run recheck (src/recheck.ts): the checks of every pending and live version
// computed again under the current rules, from what was kept of each package
// (manifest as found, findings, file hashes), and what changed told per version.

export interface RecheckChange {
  plugin: string;
  version: string;
  before: string[];
  after: string[];
  /** Set when the manifest is no longer accepted: nothing was written. */
  refused?: string;
}

const codes = (checks: Check[]): string[] => checks.map((check) => (check.file === undefined ? check.code : `${check.code} (${check.file})`));
const same = (a: string[], b: string[]) => a.length === b.length && a.every((code, i) => code === b[i]);

/** Rechecks every candidate, each in its own transaction under its plugin's lock; answers the changes and the count. */
export async function recheckAll(sql: Sql): Promise<{ checked: number; changes: RecheckChange[] }> {
  const candidates = await runNamed(sql, 'store/versions/recheck-candidates', {});
  const changes: RecheckChange[] = [];
  for (const { plugin_id: pluginId, version } of candidates) {
    const change = await inTransaction(sql, async (t) => {
      // Reviews and uploads take the plugin's lock first: what a review reads is what it decides.
      await lockPlugin(t, pluginId);
      const row = await readStoredVersion(t, pluginId, version);
      if (row === null) return null;
      const result = await recheckStored(t, row);
      if ('refused' in result) return { plugin: pluginId, version, before: codes(row.checks), after: codes(row.checks), refused: result.refused };
      const before = codes(result.before);
      const after = codes(result.after);
      return same(before, after) ? null : { plugin: pluginId, version, before, after };
    });
    if (change) changes.push(change);
  }
  return { checked: candidates.length, changes };
}

/** One line per change: "minimap 1.2.0: secret (a.txt), similar-name -> similar-name". */
export function describeChange(change: RecheckChange): string {
  const list = (items: string[]) => (items.length === 0 ? 'no checks' : items.join(', '));
  if (change.refused !== undefined) return `${change.plugin} ${change.version}: its manifest is no longer accepted (${change.refused}); checks left as they were`;
  return `${change.plugin} ${change.version}: ${list(change.before)} -> ${list(change.after)}`;
}
