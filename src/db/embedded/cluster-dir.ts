import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../../lib/log.js';
import { everyoneCanTraverse, isRoot } from './run-as.js';

/**
 * As root, PostgreSQL runs as another user, which cannot enter a folder below a
 * 0700 home such as /root (initdb: Permission denied). Then the cluster goes to a
 * folder of its own under /var/tmp, named after the wanted path so each checkout
 * keeps its own cluster across runs.
 */
export function reachableClusterDir(wanted: string, log: Logger): string {
  if (!isRoot() || everyoneCanTraverse(wanted)) return wanted;
  const key = createHash('sha256').update(wanted).digest('hex').slice(0, 12);
  // /var/tmp survives reboots (unlike a tmpfs /tmp), so the cluster is kept.
  const base = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();
  const fallback = join(base, `launcher-web-pg-${key}`, 'pg');
  log.warn('the PostgreSQL user cannot reach the data folder; the cluster lives in another one', { wanted, using: fallback });
  return fallback;
}
