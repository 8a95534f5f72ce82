// Its own module, apart from the S3 client (s3-client.ts): the routes that answer
// 503 for it are loaded by every image host, and the client, with undici, only by
// one that keeps its files in a bucket (object-storage.ts loads it when opened).

/** The bucket did not answer, or answered with a failure: the caller answers 503. */
export class BucketUnavailable extends Error {
  constructor(readonly operation: string, readonly status: number | null, cause?: unknown) {
    super(`bucket ${operation} failed${status === null ? '' : ` with HTTP ${status}`}`, { cause });
    this.name = 'BucketUnavailable';
  }
}
