import { HttpError } from '../../../../http/errors.js';
import type { Sql } from '../../../../db/pool.js';
import { inTransaction, runNamed } from '../../../../db/queries.js';
import type { TokensDeleteRow, TokensListRow } from '../../../../db/query-rows.js';
import { MAX_LISTED_TOKENS, MAX_LIVE_TOKENS } from './limits.js';
import type { SessionUser } from '../../context.js';
import { recordAudit } from '../../audit-log.js';
import type { TokenScope } from './scopes.js';
import { hashSecret, isWellFormedSecret, newSecret, shownPrefix } from './secrets.js';
import type { NewToken } from './validation.js';

// The api_tokens table (sql/006_tokens_audit_reports_notifications_webhooks.sql), through named queries.

/** A token's row as tokens/list and tokens/create return it. */
type TokenRow = TokensListRow;

/** A token as every answer shows it: never the secret, nor its hash. */
export interface TokenRecord {
  id: string;
  name: string;
  scopes: TokenScope[];
  prefix: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
}

function toRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    name: row.name,
    // api_tokens.scopes is checked against the scopes of scopes.ts (sql/006).
    scopes: row.scopes as TokenScope[],
    prefix: row.prefix,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    lastUsedAt: row.last_used_at ? row.last_used_at.toISOString() : null,
  };
}

/**
 * Creates a token for the user and answers it with its secret, which is shown
 * this once. The only place a token is made, and where it is audited (in the same
 * transaction; the entry has the token's id, name, scopes, prefix and expiry, never
 * the secret). The user's row is locked while counting, so concurrent creations
 * (from any process) cannot pass MAX_LIVE_TOKENS together.
 */
export async function createToken(sql: Sql, owner: SessionUser, wanted: NewToken): Promise<{ token: TokenRecord; secret: string }> {
  const userId = owner.id;
  const secret = newSecret();
  const row = await inTransaction(sql, async (tx) => {
    const [user] = await runNamed(tx, 'tokens/lock-user', { user_id: userId });
    if (!user) throw new HttpError(401, 'UNAUTHORIZED', 'You need to log in first');
    const [count] = await runNamed(tx, 'tokens/count-live', { user_id: userId });
    if (count!.live >= MAX_LIVE_TOKENS) {
      throw new HttpError(409, 'CONFLICT', `At most ${MAX_LIVE_TOKENS} live tokens per user: revoke one first`);
    }
    const [created] = await runNamed(tx, 'tokens/create', {
      user_id: userId,
      token_hash: hashSecret(secret),
      name: wanted.name,
      scopes: wanted.scopes,
      prefix: shownPrefix(secret),
      lifetime_days: wanted.expiresInDays,
    });
    await recordAudit(tx, { actor: owner, action: 'token.created', target: { type: 'token', user: owner.username }, before: {}, after: audited(created!) });
    return created!;
  });
  return { token: toRecord(row), secret };
}

export async function listTokens(sql: Sql, userId: string): Promise<TokenRecord[]> {
  const rows = await runNamed(sql, 'tokens/list', { user_id: userId, limit: MAX_LISTED_TOKENS });
  return rows.map(toRecord);
}

/** False when the user has no token of that id (another user's included); audited like creation. */
export async function revokeToken(sql: Sql, owner: SessionUser, tokenId: string): Promise<boolean> {
  return inTransaction(sql, async (tx) => {
    const [deleted] = await runNamed(tx, 'tokens/delete', { token_id: tokenId, user_id: owner.id });
    if (!deleted) return false;
    await recordAudit(tx, { actor: owner, action: 'token.revoked', target: { type: 'token', user: owner.username }, before: audited(deleted), after: {} });
    return true;
  });
}

/** What the audit log keeps of a token: never its secret or hash. */
function audited(row: TokensDeleteRow): Record<string, unknown> {
  return { id: row.id, name: row.name, scopes: row.scopes, prefix: row.prefix, expiresAt: row.expires_at.toISOString() };
}

export interface TokenUse {
  tokenId: string;
  scopes: readonly TokenScope[];
  user: { id: string; username: string; avatar: string };
}

/** The token behind a secret when it is live (not revoked, not expired), else null; records its use. */
export async function useToken(sql: Sql, secret: string): Promise<TokenUse | null> {
  if (!isWellFormedSecret(secret)) return null;
  const [row] = await runNamed(sql, 'tokens/use', { token_hash: hashSecret(secret) });
  if (!row) return null;
  return { tokenId: row.id, scopes: row.scopes as TokenScope[], user: { id: row.user_id, username: row.username, avatar: row.avatar } };
}
