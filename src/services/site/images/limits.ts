import { IMAGE_FORM_LIMITS, maxFormBytes, type MultipartLimits } from '../../../http/multipart/index.js';

// Every bound of the image upload (POST /apps/api/media/upload), in one place: the
// documented 8 MiB per image, a small form around it, and the uploads per user (the
// image host's own timeouts are in ../image-host/limits.ts).

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
