import { createHash, randomBytes } from 'node:crypto';
import type { Sql } from '../../../db/pool.js';
import { runNamed } from '../../../db/queries.js';
import type { SessionUser } from '../context.js';
import { SESSION_TTL_SECONDS } from './cookies.js';
import { sha256Base64 } from '../../../lib/sha256-base64.js';

// A session is a random 256-bit token in the cookie and its SHA-256 in PostgreSQL:
// whoever reads the table cannot turn a row back into a working cookie. Being in
// PostgreSQL, sessions survive restarts and are shared by every site process.

const TOKEN_BYTES = 32;
/** base64url of 32 bytes, without padding. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function isWellFormedToken(token: string | undefined): token is string {
  return token !== undefined && TOKEN_SHAPE.test(token);
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** The SHA-256 of `token` in base64: the key a process keeps a session lookup under (kept-sessions.ts). */
export const tokenKey = (token: string): string => sha256Base64(token);

/** Creates a session for the user and returns the token for the cookie. */
export async function createSession(sql: Sql, userId: string): Promise<string> {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  await runNamed(sql, 'auth/create-session', { token_hash: hashToken(token), user_id: userId, ttl_seconds: SESSION_TTL_SECONDS });
  return token;
}

/** What a session user is made of: the users columns the auth queries return. */
interface UserRow {
  id: string;
  username: string;
  avatar: string;
  is_admin: boolean;
}

export function toSessionUser(row: UserRow): SessionUser {
  return { id: String(row.id), username: row.username, avatar: row.avatar, admin: row.is_admin };
}

/** The user of a live (not expired) session, or null. */
export async function findSession(sql: Sql, token: string): Promise<SessionUser | null> {
  if (!isWellFormedToken(token)) return null;
  return (await findSessionByHash(sql, hashToken(token)))?.user ?? null;
}

export interface FoundSession {
  user: SessionUser;
  /** How long the session stays live, by the database's clock. */
  expiresInMs: number;
  /** The session generation of the same snapshot (sql/008_generations.sql). */
  generation: bigint;
}

/** The live session whose token hashes to `tokenHash`, or null. */
export async function findSessionByHash(sql: Sql, tokenHash: Buffer): Promise<FoundSession | null> {
  const rows = await runNamed(sql, 'auth/find-session', { token_hash: tokenHash });
  const row = rows[0];
  return row ? { user: toSessionUser(row), expiresInMs: row.expires_in_ms, generation: BigInt(row.generation) } : null;
}

export async function deleteSession(sql: Sql, token: string): Promise<void> {
  if (!isWellFormedToken(token)) return;
  await runNamed(sql, 'auth/delete-session', { token_hash: hashToken(token) });
}

export async function deleteUserSessions(sql: Sql, userId: string): Promise<void> {
  await runNamed(sql, 'auth/delete-user-sessions', { user_id: userId });
}

/** Removes expired rows; lookups already ignore them, this only keeps the table small. */
export async function purgeExpiredSessions(sql: Sql): Promise<number> {
  const result = await runNamed(sql, 'auth/purge-sessions', {});
  return (result as unknown as { count: number }).count;
}
