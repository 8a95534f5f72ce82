import { HttpError, validationFailed } from '../../../http/errors.js';
import type { Sql } from '../../../db/pool.js';
import { runNamed } from '../../../db/queries.js';
import type { SessionUser } from '../context.js';
import { hashPassword, passwordProblem } from './passwords.js';
import { deleteUserSessions, toSessionUser } from './sessions.js';
import { isUniqueViolation } from './users.js';
import { isValidLocalUsername, MAX_USERNAME_LENGTH } from './usernames.js';

// Local accounts, for installs without an identity provider and for the first
// administrator. Used by `npm run user` (src/user-cli.ts) and by tests; errors are
// HttpErrors so the CLI can print their message and tests can match their code.

export interface NewLocalAccount {
  username: string;
  password: string;
  /** Administrator whatever ADMIN_USERS says. */
  admin?: boolean;
}

export async function createLocalAccount(sql: Sql, account: NewLocalAccount): Promise<SessionUser> {
  checkUsername(account.username);
  checkPassword(account.password);
  const passwordHash = await hashPassword(account.password);
  try {
    const rows = await runNamed(sql, 'auth/create-local-user', {
      username: account.username,
      password_hash: passwordHash,
      is_admin: account.admin === true,
    });
    return toSessionUser(rows[0]!);
  } catch (error) {
    if (isUniqueViolation(error, 'users_username_lower')) {
      throw new HttpError(409, 'CONFLICT', `the name "${account.username}" is already taken`, { field: 'username' });
    }
    throw error;
  }
}

/** Sets a new password and ends the account's sessions (a changed password is often a response to a leak). */
export async function setLocalPassword(sql: Sql, username: string, password: string): Promise<void> {
  checkUsername(username);
  checkPassword(password);
  const passwordHash = await hashPassword(password);
  const rows = await runNamed(sql, 'auth/set-local-password', { username, password_hash: passwordHash });
  if (!rows[0]) throw new HttpError(404, 'NOT_FOUND', `there is no local account named "${username}"`);
  await deleteUserSessions(sql, String(rows[0].id));
}

function checkUsername(username: string): void {
  if (!isValidLocalUsername(username)) {
    throw validationFailed(
      'username',
      `a name has 1 to ${MAX_USERNAME_LENGTH} characters: letters, digits, "_", "." or "-"`,
    );
  }
}

function checkPassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw validationFailed('password', problem);
}
