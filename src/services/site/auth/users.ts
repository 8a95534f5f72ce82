import { randomBytes } from 'node:crypto';
import type { Logger } from '../../../lib/log.js';
import type { Sql } from '../../../db/pool.js';
import { runNamed } from '../../../db/queries.js';
import type { AuthFindLocalUserRow } from '../../../db/query-rows.js';
import type { SessionUser } from '../context.js';
import type { ProviderIdentity } from './identity.js';
import { toSessionUser } from './sessions.js';
import { usernameCandidates } from './usernames.js';

const USERNAME_INDEX = 'users_username_lower';
const RANDOM_SUFFIX_BYTES = 3;

/**
 * Creates or updates the user of a provider subject. The provider's username is
 * kept when free; when another user (a local account, or another provider user
 * who had the name first) holds it, the next free "name-N" is used.
 *
 * Administrator rights come from `adminNames` (ADMIN_USERS) through pins
 * (sql/001_users.sql): the first subject to log in under a listed name, as
 * actually stored (so a provider user called like a listed local administrator
 * gets "name-2" and nothing else), holds that name's rights from then on, under
 * any later name; no other subject ever gets them by taking the name. A name from
 * the free-text `name` claim never claims a pin.
 */
export async function upsertProviderUser(
  sql: Sql,
  identity: ProviderIdentity,
  adminNames: readonly string[],
  log?: Logger,
): Promise<SessionUser> {
  const listed = adminNames.map((name) => name.toLowerCase());
  const randomSuffix = () => randomBytes(RANDOM_SUFFIX_BYTES).toString('hex');
  for (const username of usernameCandidates(identity.username, randomSuffix)) {
    const name = username.toLowerCase();
    const claim = identity.usernameClaim !== 'name' && listed.includes(name) ? name : null;
    try {
      const [row] = await runNamed(sql, 'auth/upsert-provider-user', {
        subject: identity.subject,
        username,
        avatar: identity.avatar,
        admin_names: listed,
        pin_name: claim,
      });
      // Operators should see who got a listed name: the pin is for good.
      if (row!.pinned_name) log?.warn('ADMIN_USERS name pinned to a provider subject', { name: row!.pinned_name, subject: identity.subject });
      return toSessionUser(row!);
    } catch (error) {
      if (!isUniqueViolation(error, USERNAME_INDEX)) throw error;
    }
  }
  throw new Error('no free username for a provider user after every candidate');
}

export async function findLocalUser(sql: Sql, username: string): Promise<AuthFindLocalUserRow | null> {
  const rows = await runNamed(sql, 'auth/find-local-user', { username });
  return rows[0] ?? null;
}

/** Applies ADMIN_USERS to a local account at login (an account made with --admin stays admin). */
export async function refreshLocalAdmin(sql: Sql, userId: string, listed: boolean): Promise<SessionUser> {
  const rows = await runNamed(sql, 'auth/refresh-local-admin', { user_id: userId, listed });
  return toSessionUser(rows[0]!);
}

export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const pgError = error as { code?: unknown; constraint_name?: unknown } | null;
  return pgError?.code === '23505' && pgError.constraint_name === constraint;
}
