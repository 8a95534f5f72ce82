import { Algorithm, hash, verify } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';
import { HttpError } from '../../../http/errors.js';
import { createTaskQueue } from '../../../lib/task-queue.js';

// argon2id with the OWASP Password Storage Cheat Sheet's first profile (19 MiB,
// 2 passes, 1 lane): about 20-50 ms per hash on a small server, which is what a
// login can afford and what makes an offline guess expensive.
export const ARGON2_MEMORY_KIB = 19 * 1024;
export const ARGON2_TIME_COST = 2;
export const ARGON2_PARALLELISM = 1;

export const MIN_PASSWORD_LENGTH = 8;
/** Longer input only makes hashing slower; nobody types more. */
export const MAX_PASSWORD_LENGTH = 1024;

/**
 * Hashes run on libuv's thread pool, which file reads and DNS share. At most this
 * many at once, so a burst of logins cannot starve the rest of the process...
 */
export const MAX_CONCURRENT_HASHES = 2;
/** ...and at most this many waiting; beyond, the login is refused with 429. */
export const MAX_WAITING_HASHES = 64;

const OPTIONS = {
  algorithm: Algorithm.Argon2id,
  memoryCost: ARGON2_MEMORY_KIB,
  timeCost: ARGON2_TIME_COST,
  parallelism: ARGON2_PARALLELISM,
};

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** False also for a stored hash that does not parse: a broken row must not log anyone in. */
export async function verifyPassword(storedHash: string, password: string): Promise<boolean> {
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}

/** Null when acceptable, else what is wrong with it. */
export function passwordProblem(password: string): string | null {
  const length = Array.from(password).length;
  if (length < MIN_PASSWORD_LENGTH) return `the password must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (length > MAX_PASSWORD_LENGTH) return `the password must have at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}

/**
 * A hash of a random password, made once: verifying an unknown username against it
 * costs the same time as a wrong password for a real one, so timing does not tell
 * which names exist.
 */
export function createDummyHash(): Promise<string> {
  return hashPassword(randomBytes(32).toString('base64url'));
}

export interface HashGate {
  run<T>(task: () => Promise<T>): Promise<T>;
}

export function createHashGate(maxConcurrent = MAX_CONCURRENT_HASHES, maxWaiting = MAX_WAITING_HASHES): HashGate {
  const queue = createTaskQueue({ concurrency: maxConcurrent, maxWaiting });
  const busy = () =>
    new HttpError(429, 'RATE_LIMITED', 'Too many logins at once; try again in a moment', { headers: { 'Retry-After': '1' } });
  return { run: (task) => queue.run(task, busy) };
}
