// Every bound of the site's calls to the image host, in one place: the pool's,
// which tests shorten, and what each call may take (its wait for the answer's
// head, its pauses within the answer, the largest answer it reads). undici's own
// timeouts are 300 s: every one is explicit here.

const KiB = 1024;
const MiB = 1024 * KiB;

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
  /** An image upload's answer is a small JSON document; anything larger is a broken image host. */
  maxAnswerBytes: number;
  /** Connections kept to the image host: one per call in flight, the rest wait. */
  connections: number;
}

export const DEFAULT_IMAGE_HOST_LIMITS: Readonly<ImageHostLimits> = Object.freeze({
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 15_000,
  bodyTimeoutMs: 10_000,
  maxAnswerBytes: 64 * KiB,
  connections: 64,
});

/** What one call may take. */
export interface CallBounds {
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  maxAnswerBytes: number;
}

/** The bounds of each call the site makes, from the pool's limits. */
export function callBounds(limits: ImageHostLimits): Record<'image' | 'package' | 'removal' | 'inspection', CallBounds> {
  // The image host inspects a whole ZIP (inflating every entry) before it answers.
  const packageHeadersMs = Math.max(limits.headersTimeoutMs, 60_000);
  return {
    image: { headersTimeoutMs: limits.headersTimeoutMs, bodyTimeoutMs: limits.bodyTimeoutMs, maxAnswerBytes: limits.maxAnswerBytes },
    // The answer lists every file with its hash (up to 10,000, the image host's
    // MAX_ENTRIES, names of up to 4 KiB), the first 1,000 again with sizes, the
    // manifest (64 KiB) and the findings: tens of MB at the very worst, about 100
    // bytes a file as packages are.
    package: { headersTimeoutMs: packageHeadersMs, bodyTimeoutMs: limits.bodyTimeoutMs, maxAnswerBytes: 64 * MiB },
    removal: { headersTimeoutMs: packageHeadersMs, bodyTimeoutMs: limits.bodyTimeoutMs, maxAnswerBytes: limits.maxAnswerBytes },
    // The bytes come from an outside link as they are fetched, so the image host's
    // reads wait on it too; the package check's own time limit bounds the whole.
    inspection: { headersTimeoutMs: 120_000, bodyTimeoutMs: 30_000, maxAnswerBytes: 64 * MiB },
  };
}
