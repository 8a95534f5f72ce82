import { createHash, randomBytes } from 'node:crypto';

// A token's secret: `lwt_` and 256 random bits in base64url. The fixed prefix lets
// secret scanners (GitHub's, gitleaks) recognise a leaked one; only its SHA-256 is
// stored, like a session's (src/services/site/auth/sessions.ts).

export const SECRET_PREFIX = 'lwt_';
const SECRET_BYTES = 32;
/** `lwt_` and base64url of 32 bytes, without padding. */
const SECRET_SHAPE = /^lwt_[A-Za-z0-9_-]{43}$/;
/** Characters of the secret kept in clear, so a user can tell tokens apart in a list. */
export const SHOWN_PREFIX_LENGTH = SECRET_PREFIX.length + 6;

export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
}

export function isWellFormedSecret(secret: string): boolean {
  return SECRET_SHAPE.test(secret);
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

export function shownPrefix(secret: string): string {
  return secret.slice(0, SHOWN_PREFIX_LENGTH);
}
