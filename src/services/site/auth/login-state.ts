import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { safeReturnTo } from './return-to.js';

// A login in progress lives in a cookie, not in the database: the login route is
// public, and rows written for every click on "log in" would be a free way to fill
// a table. The cookie binds the OAuth `state` (CSRF protection of the callback,
// RFC 6749 10.12), the PKCE verifier (RFC 7636) and return_to to this browser.
//
// It is signed (HMAC-SHA256), not encrypted: the browser may read its own verifier,
// nobody else can forge or alter the cookie. The key is derived from
// OAUTH_CLIENT_SECRET, so a login started before a restart, or on another site
// process behind the same balancer, still completes. With a public client (no
// secret) the key is random per process and a restart in the middle of a login
// costs the user one more click on "log in".

const RANDOM_BYTES = 32;
const KEY_BYTES = 32;
const KEY_SALT = 'launcher-web';
const KEY_INFO = 'login-state-cookie v1';
/** Longest state we compare; ours are 43 characters. */
const MAX_STATE_LENGTH = 256;

export interface LoginState {
  state: string;
  verifier: string;
  returnTo: string;
  /** Epoch milliseconds after which the cookie is refused even if the browser kept it. */
  expiresAt: number;
}

export function randomToken(): string {
  return randomBytes(RANDOM_BYTES).toString('base64url');
}

/** RFC 7636 4.2: S256 challenge = BASE64URL(SHA256(ASCII(verifier))). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export function loginStateKey(clientSecret: string): Buffer {
  if (clientSecret === '') return randomBytes(KEY_BYTES);
  return Buffer.from(hkdfSync('sha256', clientSecret, KEY_SALT, KEY_INFO, KEY_BYTES));
}

export function sealLoginState(key: Buffer, value: LoginState): string {
  const payload = Buffer.from(JSON.stringify([value.state, value.verifier, value.returnTo, value.expiresAt])).toString('base64url');
  return `${payload}.${mac(key, payload)}`;
}

/** The state in the cookie, or null when it is missing, forged, altered or expired. */
export function openLoginState(key: Buffer, cookie: string | undefined, now = Date.now()): LoginState | null {
  if (!cookie) return null;
  const dot = cookie.indexOf('.');
  if (dot === -1) return null;
  const payload = cookie.slice(0, dot);
  if (!sameText(cookie.slice(dot + 1), mac(key, payload))) return null;
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(fields) || fields.length !== 4) return null;
  const [state, verifier, returnTo, expiresAt] = fields as unknown[];
  if (typeof state !== 'string' || typeof verifier !== 'string' || typeof returnTo !== 'string') return null;
  if (typeof expiresAt !== 'number' || expiresAt <= now) return null;
  return { state, verifier, returnTo: safeReturnTo(returnTo), expiresAt };
}

/** Constant-time comparison of the state from the query with the cookie's. */
export function stateMatches(expected: string, received: string | null): boolean {
  if (received === null || received.length > MAX_STATE_LENGTH) return false;
  return sameText(expected, received);
}

function mac(key: Buffer, payload: string): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
