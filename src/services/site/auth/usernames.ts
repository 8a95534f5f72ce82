import type { SiteSettings } from '../settings.js';

// Usernames name users in URLs and on pages (ratings, replies), so they are unique
// case-insensitively across local accounts and provider users alike.

export const MAX_USERNAME_LENGTH = 64;
/** Local accounts: letters, digits, `_`, `.`, `-`; 1 to 64 characters. */
export const LOCAL_USERNAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** Suffixed names tried ("alice-2" .. "alice-20") before a random one. */
export const MAX_NUMBERED_SUFFIX = 20;

// Provider names may be any text, but not controls (C0, DEL, C1), bidi overrides
// and isolates (they reorder what is shown around them), or line/paragraph separators.
const UNSAFE_IN_NAME = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]/;

/**
 * False for what no stored username can be, whatever its origin: too long, or
 * holding a NUL (PostgreSQL text cannot), so a lookup by it is skipped, not sent.
 */
export function couldBeUsername(name: string): boolean {
  return name.length <= MAX_USERNAME_LENGTH * 2 && !name.includes('\0');
}

export function isValidLocalUsername(name: string): boolean {
  return LOCAL_USERNAME.test(name);
}

/**
 * A provider's display of a username made safe to store: trimmed, NFC, no unsafe
 * characters, at most MAX_USERNAME_LENGTH code points. Null when nothing usable is
 * left, so the next candidate field is tried.
 */
export function cleanProviderUsername(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const name = value.normalize('NFC').trim();
  if (name === '' || UNSAFE_IN_NAME.test(name)) return null;
  return truncate(name, MAX_USERNAME_LENGTH);
}

/**
 * Names to try, in order, when `name` may be taken by another user: the name,
 * then "name-2".."name-20", then "name-<random>". Each stays within the length limit.
 */
export function* usernameCandidates(name: string, randomSuffix: () => string): Generator<string> {
  yield name;
  for (let n = 2; n <= MAX_NUMBERED_SUFFIX; n++) yield withSuffix(name, `-${n}`);
  yield withSuffix(name, `-${randomSuffix()}`);
}

function withSuffix(name: string, suffix: string): string {
  return truncate(name, MAX_USERNAME_LENGTH - suffix.length) + suffix;
}

function truncate(text: string, maxCodePoints: number): string {
  const points = Array.from(text);
  return points.length <= maxCodePoints ? text : points.slice(0, maxCodePoints).join('');
}

/**
 * ADMIN_USERS, compared case-insensitively, as usernames are unique that way: a
 * listed "Alice" and the user "alice" are the same person.
 */
export function adminMatcher(config: SiteSettings): (username: string) => boolean {
  const names = new Set([...config.adminUsers].map((name) => name.toLowerCase()));
  return (username) => names.has(username.toLowerCase());
}
