// Every multipart limit is explicit: busboy's defaults are Infinity, and a default we
// do not choose is one we did not think about. Callers pass a Partial to tighten or
// widen a route; anything they leave out falls back to these.

const KiB = 1024;
const MiB = 1024 * KiB;

export interface MultipartLimits {
  /** Per file part: bytes of content. */
  fileBytes: number;
  /** Number of file parts. */
  files: number;
  /** Number of non-file parts. */
  fields: number;
  /** Per field: bytes of the value. Field values are buffered, so keep this small. */
  fieldBytes: number;
  /** Per part: bytes of the header block, including its CRLFs. */
  headerBytes: number;
  /** Number of parts of either kind. */
  parts: number;
}

export const DEFAULT_MULTIPART_LIMITS: Readonly<MultipartLimits> = Object.freeze({
  fileBytes: 8 * MiB,
  files: 1,
  fields: 20,
  fieldBytes: 64 * KiB,
  headerBytes: 8 * KiB,
  parts: 25,
});

/**
 * The form of an image upload (the image host's /api/upload, the site's media
 * route), besides its file size: one image, a few other fields or files tolerated
 * (drained and ignored), nothing about them large.
 */
export const IMAGE_FORM_LIMITS: Readonly<Omit<MultipartLimits, 'fileBytes'>> = Object.freeze({
  files: 3,
  fields: 16,
  fieldBytes: 4 * KiB,
  headerBytes: 4 * KiB,
  parts: 19,
});

/** Longest delimiter line: CRLF "--" boundary (70 at most, RFC 2046) "--" CRLF. */
const DELIMITER_BYTES = 2 + 2 + 70 + 2 + 2;

/** The largest body a valid form under `limits` can have: a larger declared Content-Length is refused unread. */
export function maxFormBytes(limits: MultipartLimits): number {
  const l = limits;
  return l.files * l.fileBytes + l.fields * l.fieldBytes + l.parts * (l.headerBytes + DELIMITER_BYTES) + DELIMITER_BYTES;
}

const LIMIT_NAMES = Object.keys(DEFAULT_MULTIPART_LIMITS) as (keyof MultipartLimits)[];

/**
 * Fills in defaults and checks the values. A bad limit is a programming error, not
 * something a client sent, so it is a RangeError (surfacing on the first `next()`).
 */
export function resolveLimits(limits: Partial<MultipartLimits> | undefined): MultipartLimits {
  const resolved = { ...DEFAULT_MULTIPART_LIMITS };
  for (const name of LIMIT_NAMES) {
    const value = limits?.[name];
    if (value === undefined) continue;
    if (!(value >= 0) || (!Number.isInteger(value) && value !== Infinity)) {
      throw new RangeError(
        `Multipart limit "${name}" must be a non-negative integer or Infinity, got ${String(value)}`,
      );
    }
    resolved[name] = value;
  }
  return resolved;
}
