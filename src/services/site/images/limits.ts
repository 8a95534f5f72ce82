import { IMAGE_FORM_LIMITS, maxFormBytes, type MultipartLimits } from '../../../http/multipart/index.js';

// Every bound of the media upload, in one place. The image size is the
// documented 8 MiB per file; the rest keep a form small and a stalled image host from
// holding a user's request for long.

const KiB = 1024;
const MiB = 1024 * KiB;

/** Largest image accepted, in file bytes (8 MiB per file, docs/api.md "Media upload"). */
export const MAX_IMAGE_BYTES = 8 * MiB;

/** The form around the image: see IMAGE_FORM_LIMITS. */
export const UPLOAD_FORM_LIMITS: Readonly<MultipartLimits> = Object.freeze({ ...IMAGE_FORM_LIMITS, fileBytes: MAX_IMAGE_BYTES });

/**
 * The largest declared Content-Length accepted: the documented form is one file part,
 * so one full-size image and the small parts a form may carry besides. A larger
 * declaration (a 9 MiB image, say) is refused before a byte is read, and nothing
 * at all reaches the image host. A chunked body has no declaration: each file is
 * counted as it streams, and the relay is abandoned past 8 MiB.
 */
export const MAX_FORM_BYTES = maxFormBytes({ ...UPLOAD_FORM_LIMITS, files: 1 });

/** Uploads per user per window, over every site process (kept in PostgreSQL). */
export const UPLOADS_PER_WINDOW = 30;
export const UPLOAD_WINDOW_MS = 60_000;

export interface ImageHostLimits {
  /** TCP connect to the image host. */
  connectTimeoutMs: number;
  /**
   * From the end of our request to the image host's answer head, and while
   * sending, the longest the image host may leave our writes waiting. The image
   * host decodes every image before it answers, in a queue: leave it room.
   */
  headersTimeoutMs: number;
  /** Longest pause between two chunks of the answer's body. */
  bodyTimeoutMs: number;
  /** The answer is a small JSON document; anything larger is a broken image host. */
  maxAnswerBytes: number;
  /** Connections kept to the image host: one per upload in flight, the rest wait. */
  connections: number;
}

export const DEFAULT_IMAGE_HOST_LIMITS: Readonly<ImageHostLimits> = Object.freeze({
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 15_000,
  bodyTimeoutMs: 10_000,
  maxAnswerBytes: 64 * KiB,
  connections: 64,
});
