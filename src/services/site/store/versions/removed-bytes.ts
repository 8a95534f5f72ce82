import type { Sql } from '../../../../db/pool.js';
import { runNamed } from '../../../../db/queries.js';

// Bytes an administrator removed (sql/007): a removal marks them under the bytes'
// lock; an insert or an approval of them reads the mark under its shared lock, so
// whichever comes second sees what the first decided.

/**
 * Whether an administrator removed these bytes, read under the bytes' shared lock,
 * which this transaction then holds: a removal of them waits for it and sees what
 * it wrote (a version inserted or made live).
 */
export async function bytesRemoved(t: Sql, sha256: string): Promise<boolean> {
  await runNamed(t, 'store/versions/lock-bytes-shared', { sha256 });
  const [row] = await runNamed(t, 'store/versions/bytes-removed', { sha256 });
  return row!.removed === true;
}

/**
 * Marks the bytes of a version just removed as removed, unless another live version
 * of any plugin has them: then the image host keeps the file for it. Holds the
 * bytes' lock, so an approval or an insert of them waits for this transaction and
 * then sees what it decided. True when the bytes are removed.
 */
export async function markBytesRemoved(t: Sql, pluginId: string, version: string, sha256: string): Promise<boolean> {
  await runNamed(t, 'store/versions/lock-bytes', { sha256 });
  const [row] = await runNamed(t, 'store/versions/mark-bytes-removed', { plugin_id: pluginId, version, sha256 });
  return row!.removed === true;
}
