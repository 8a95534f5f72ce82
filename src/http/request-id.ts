import { randomBytes } from 'node:crypto';

/** An id a client may send in X-Request-Id and have echoed (and logged) as it is. */
export const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Random bits that tell this process's ids from those of other processes and of
 * earlier runs: 64 of them make a collision between two processes' ids unlikely
 * enough to ignore.
 */
const PROCESS_PREFIX_BYTES = 8;
const prefix = randomBytes(PROCESS_PREFIX_BYTES).toString('hex') + '-';
let counter = 0;

/**
 * A fresh request id: this process's random prefix and a counter, e.g.
 * `3f9a1c2b7d4e5f60-1kz`. A request id correlates an answer with its log lines; it
 * is not a secret and grants nothing, so it need only be unique, not unguessable.
 * A counter is unique by construction and costs one small string per request,
 * where randomUUID() formats 16 random bytes into hex every time.
 */
export function nextRequestId(): string {
  counter++;
  return prefix + counter.toString(36);
}
