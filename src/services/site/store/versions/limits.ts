import { maxFormBytes, type MultipartLimits } from '../../../../http/multipart/index.js';

// Every bound of the versions routes, in one place.

const KiB = 1024;

/** Longest changelog, in characters (the database holds the same limit, sql/007). */
export const MAX_CHANGELOG = 10_000;

/** Versions a list answers at most (newest first); a plugin with more shows its newest. */
export const MAX_LISTED_VERSIONS = 1000;

/**
 * The upload form: one ZIP (PACKAGE_MAX_BYTES) and the fields `version` and
 * `changelog` (10,000 characters, up to 4 bytes each in UTF-8); a few other parts are
 * tolerated and ignored, nothing about them large.
 */
export function uploadFormLimits(packageMaxBytes: number): MultipartLimits {
  return { fileBytes: packageMaxBytes, files: 2, fields: 8, fieldBytes: 40 * KiB, headerBytes: 4 * KiB, parts: 10 };
}

/** The largest declared Content-Length of an upload: a larger one is refused before a byte is read. */
export function maxUploadBytes(packageMaxBytes: number): number {
  return maxFormBytes({ ...uploadFormLimits(packageMaxBytes), files: 1 });
}

/** Version uploads per user per window, over every site process. */
export const UPLOADS_PER_WINDOW = 30;
export const UPLOAD_WINDOW_MS = 60_000;

/** POST /apps/api/updates: entries per request, body bytes, requests per address per minute. */
export const MAX_UPDATE_ENTRIES = 500;
// The largest valid body: 500 entries of a 128-character id, a 64-character version
// and a hash, with their JSON around them, is about 160 KiB.
export const UPDATES_BODY_LIMIT = 192 * KiB;
export const UPDATE_CHECKS_PER_MINUTE = 60;
/**
 * Update check bodies whose hash a site process keeps (lib/hash-memo.ts), with their
 * bytes: a launcher polling with the same body is not hashed again.
 */
export const UPDATE_BODY_HASHES = { maxEntries: 512, maxBytes: 4 * 1024 * KiB };
/**
 * Update checks of one address a site process lets through before PostgreSQL has
 * counted them: over N processes an address gets at most 60 + (N - 1) x 5 a minute.
 */
export const UPDATE_CHECKS_UNFLUSHED = 5;
/**
 * How often a site process adds the checks it counted to PostgreSQL. A quarter of a
 * second, not one: with a new address per check at 8,000 checks a second, each add
 * cost the site 3-7 ms of one turn of its event loop (the batch built, sorted,
 * serialized, its keys forgotten), which every request in flight waited for; four
 * smaller ones a second cost as much in all, in pieces of 1-2 ms. The tolerance
 * does not depend on it (UPDATE_CHECKS_UNFLUSHED does).
 */
export const UPDATE_CHECKS_FLUSH_MS = 250;
