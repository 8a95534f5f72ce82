// When a failed delivery is tried again: 30 s after the first attempt, then twice
// as long after each further one (1 min, 2 min, 4 min...), at most an hour apart,
// until 24 hours after the delivery was queued (mark-failed.sql ends it there).

export const FIRST_RETRY_MS = 30_000;
export const MAX_RETRY_MS = 60 * 60_000;
export const GIVE_UP_AFTER_MS = 24 * 60 * 60_000;

/** The wait after attempt number `attempts` (1 = the first) failed. */
export function retryDelayMs(attempts: number): number {
  const exponent = Math.min(Math.max(attempts, 1) - 1, 20);
  return Math.min(FIRST_RETRY_MS * 2 ** exponent, MAX_RETRY_MS);
}
