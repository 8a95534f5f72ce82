import { HttpError, validationFailed } from '../../../http/errors.js';
import { rateLimited, type RateDecision } from '../../../http/rate-limited.js';
import { sendOk } from '../../../http/answer/index.js';
import { createSharedRateLimiter, type SharedRateLimiter } from '../../../db/shared-rate-limiter.js';
import type { SiteContext, SiteDeps, SiteHandler } from '../context.js';
import { createDummyHash, createHashGate, MAX_PASSWORD_LENGTH, verifyPassword } from './passwords.js';
import { isObject } from '../../../lib/json-object.js';
import { beginSession, publicUser } from './session-lifecycle.js';
import { findLocalUser, refreshLocalAdmin } from './users.js';
import { adminMatcher, isValidLocalUsername, MAX_USERNAME_LENGTH } from './usernames.js';

// POST /apps/auth/password {username, password}: login with a local account.

// Three limits on failed attempts, each per 15-minute window:
// - per username and address, the tight one: one guesser at one account;
// - per address, any name: one guesser trying many accounts;
// - per username, any address, much higher: many addresses at one account. It is
//   not the tight one because anyone can spend it: at 10 per name, anyone could
//   lock any account (the administrator's included) from anywhere.

export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
/** Failed attempts per username from one client address per window. */
export const MAX_FAILURES_PER_NAME_AND_ADDRESS = 10;
/** Failed attempts per client address (any name) per window. */
export const MAX_FAILURES_PER_ADDRESS = 30;
/** Failed attempts per username (any address) per window. */
export const MAX_FAILURES_PER_NAME = 200;

const INVALID = 'Wrong username or password';

export interface LoginLimits {
  failuresPerNameAndAddress: number;
  failuresPerAddress: number;
  failuresPerName: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  failuresPerNameAndAddress: MAX_FAILURES_PER_NAME_AND_ADDRESS,
  failuresPerAddress: MAX_FAILURES_PER_ADDRESS,
  failuresPerName: MAX_FAILURES_PER_NAME,
};

/** POST /apps/auth/password: a local account's login, limited per name and address. */
export function passwordLoginHandler(deps: SiteDeps, limits: LoginLimits = DEFAULT_LOGIN_LIMITS): SiteHandler {
  // In PostgreSQL, so every site process counts against the same limits.
  const byNameAndAddress = createSharedRateLimiter(deps.sql, {
    name: 'login:name-address',
    limit: limits.failuresPerNameAndAddress,
    windowMs: LOGIN_WINDOW_MS,
  });
  const byName = createSharedRateLimiter(deps.sql, { name: 'login:name', limit: limits.failuresPerName, windowMs: LOGIN_WINDOW_MS });
  const byAddress = createSharedRateLimiter(deps.sql, { name: 'login:address', limit: limits.failuresPerAddress, windowMs: LOGIN_WINDOW_MS });
  const gate = createHashGate();
  const isAdminName = adminMatcher(deps.config);
  // Made once, at start; a failure here would surface on the first unknown name.
  const dummyHash = createDummyHash();
  dummyHash.catch(() => {});

  const handler = async (ctx: SiteContext) => {
    const { username, password } = credentialsFrom(ctx.body);
    const nameKey = username.toLowerCase();
    const addressKey = ctx.ip;
    const pairKey = `${addressKey} ${nameKey}`;

    // Counted before the hash is checked, so a burst of parallel guesses cannot
    // all pass the limit while the first ones are still being verified.
    await countAttempt([
      [byNameAndAddress, pairKey],
      [byAddress, addressKey],
      [byName, nameKey],
    ]);

    const account = isValidLocalUsername(username) ? await findLocalUser(deps.sql, username) : null;
    const valid = await gate.run(async () => verifyPassword(account?.password_hash ?? (await dummyHash), password));
    if (!account || !valid) throw new HttpError(401, 'INVALID_CREDENTIALS', INVALID);

    // The user's own failures are forgiven; others' failures against the name stay.
    await Promise.all([byNameAndAddress.reset(pairKey), byAddress.refund(addressKey), byName.refund(nameKey)]);
    const user = await refreshLocalAdmin(deps.sql, String(account.id), isAdminName(account.username));
    await beginSession(ctx, deps, user);
    sendOk(ctx, { user: publicUser(user) });
  };

  return handler;
}

function credentialsFrom(body: unknown): { username: string; password: string } {
  if (!isObject(body)) throw new HttpError(400, 'BAD_REQUEST', 'Expected a JSON object with username and password');
  const { username, password } = body;
  if (typeof username !== 'string' || !fits(username, MAX_USERNAME_LENGTH)) {
    throw validationFailed('username', `username must be a string of 1 to ${MAX_USERNAME_LENGTH} characters`);
  }
  if (typeof password !== 'string' || !fits(password, MAX_PASSWORD_LENGTH)) {
    throw validationFailed('password', `password must be a string of 1 to ${MAX_PASSWORD_LENGTH} characters`);
  }
  return { username, password };
}

/** 1 to max code points; a string of over 2 × max UTF-16 units is too long without counting. */
function fits(text: string, max: number): boolean {
  if (text.length === 0 || text.length > max * 2) return false;
  return Array.from(text).length <= max;
}

/**
 * Counts one attempt against every limit at once (each hit is atomic in the
 * database). When one refuses, the hits the others allowed are taken back, so an
 * attempt that is refused anyway does not use up a budget, then the longest wait
 * is the 429's Retry-After.
 */
async function countAttempt(limits: Array<[SharedRateLimiter, string]>): Promise<void> {
  const decisions = await Promise.all(limits.map(([limiter, key]) => limiter.hit(key)));
  const refused = decisions.filter((decision) => !decision.allowed);
  if (refused.length === 0) return;
  await Promise.all(limits.filter((_, i) => decisions[i]!.allowed).map(([limiter, key]) => limiter.refund(key)));
  throw rateLimited(longest(refused));
}

function longest(decisions: RateDecision[]): RateDecision {
  return decisions.reduce((a, b) => (b.retryAfterSeconds > a.retryAfterSeconds ? b : a));
}
