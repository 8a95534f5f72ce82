import { randomBytes } from 'node:crypto';
import type { Sql } from '../../db/pool.js';
import { runQuery } from '../../db/queries.js';
import type { SessionUser } from '../context.js';
import type { ProviderIdentity } from './identity.js';
import { toSessionUser } from './sessions.js';
import { usernameCandidates } from './usernames.js';

interface UserRow {
  id: string;
  username: string;
  avatar: string;
  is_admin: boolean;
}

export interface LocalUserRow {
  id: string;
  username: string;
  password_hash: string;
}

const USERNAME_INDEX = 'users_username_lower';
const RANDOM_SUFFIX_BYTES = 3;

/**
 * Creates or updates the user of a provider subject. The provider's username is
 * kept when free; when another user (a local account, or another provider user
 * who had the name first) holds it, the next free "name-N" is used. The admin flag
 * is decided on the name actually stored, so a provider user called like a listed
 * local administrator does not inherit that right.
 */
export async function upsertProviderUser(
  sql: Sql,
  identity: ProviderIdentity,
  isAdminName: (username: string) => boolean,
): Promise<SessionUser> {
  const randomSuffix = () => randomBytes(RANDOM_SUFFIX_BYTES).toString('hex');
  for (const username of usernameCandidates(identity.username, randomSuffix)) {
    try {
      const rows = await runQuery<UserRow>(sql, 'auth/upsert-provider-user', [
        identity.subject,
        username,
        identity.avatar,
        isAdminName(username),
      ]);
      return toSessionUser(rows[0]!);
    } catch (error) {
      if (!isUniqueViolation(error, USERNAME_INDEX)) throw error;
    }
  }
  throw new Error('no free username for a provider user after every candidate');
}

export async function findLocalUser(sql: Sql, username: string): Promise<LocalUserRow | null> {
  const rows = await runQuery<LocalUserRow>(sql, 'auth/find-local-user', [username]);
  return rows[0] ?? null;
}

/** Applies ADMIN_USERS to a local account at login (an account made with --admin stays admin). */
export async function refreshLocalAdmin(sql: Sql, userId: string, listed: boolean): Promise<SessionUser> {
  const rows = await runQuery<UserRow>(sql, 'auth/refresh-local-admin', [userId, listed]);
  return toSessionUser(rows[0]!);
}

export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const pgError = error as { code?: unknown; constraint_name?: unknown } | null;
  return pgError?.code === '23505' && pgError.constraint_name === constraint;
}
