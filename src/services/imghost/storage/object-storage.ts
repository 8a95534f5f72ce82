import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { HttpError } from '../../../http/errors.js';
import { wallClock, type Clock } from '../../../lib/clock.js';
import type { Logger } from '../../../lib/log.js';
import { openObjectCache, type ObjectCache } from './object-cache.js';
import { BucketUnavailable } from './bucket-unavailable.js';
import type { S3Client } from './s3-client.js';
import type { S3StorageSettings } from './storage-settings.js';

// The bucket as the image host's features see it: the client, object names under
// the configured prefix, the local cache of hot objects, the public URL of an
// object, and whether the bucket answers (for /readyz).

/** /readyz is asked every few seconds by each balancer: one bucket probe per this long at most. */
export const PROBE_CACHE_MS = 2_000;
/** What a client is told to wait after a bucket failure. */
export const BUCKET_RETRY_AFTER_SECONDS = '5';
const DOWNLOAD_ATTEMPTS = 2;

/** 503 UNAVAILABLE with Retry-After: the bucket did not answer; nothing was stored or served. */
export const storageUnavailable = (plain: boolean, cause: unknown) =>
  new HttpError(503, 'UNAVAILABLE', 'Storage unavailable, try again shortly', { plain, cause, headers: { 'Retry-After': BUCKET_RETRY_AFTER_SECONDS } });

/** A bucket failure as the 503 it is answered with; anything else unchanged. */
export function bucketFailureToHttp(error: unknown, plain: boolean): unknown {
  return error instanceof BucketUnavailable ? storageUnavailable(plain, error) : error;
}

export interface ObjectStorage {
  client: S3Client;
  cache: ObjectCache;
  /** The object key of a name such as "images/ab/<md5>.png". */
  key(name: string): string;
  /** STORAGE_PUBLIC_URL + the key, when reads are redirected there. */
  publicUrl(name: string): string | undefined;
  /**
   * Downloads a whole object into `file` (created, 'wx') and checks it (its length,
   * its x-amz-meta-sha256, `expectedMd5`); its size, or null when there is none.
   */
  download(name: string, file: string, expectedMd5?: string): Promise<number | null>;
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

/** `now`: the clock the readiness probe's answer is kept by (tests move it). */
export async function openObjectStorage(settings: S3StorageSettings, log: Logger, now: Clock = wallClock): Promise<ObjectStorage> {
  // Loaded only here: an image host that keeps its files on disk never loads undici.
  const { createS3Client } = await import('./s3-client.js');
  const client = createS3Client(settings.s3);
  const cache = await openObjectCache(settings.cacheDir, settings.cacheMaxBytes, log);
  const key = (name: string) => (settings.prefix === '' ? name : `${settings.prefix}/${name}`);
  let probed: { at: number; ready: Promise<boolean> } | null = null;

  async function probe(): Promise<boolean> {
    try {
      await client.probe();
      return true;
    } catch (error) {
      log.warn('bucket unreachable', { err: error });
      return false;
    }
  }

  /**
   * One GET into `file`, checked on the way: the length against Content-Length, the
   * SHA-256 against x-amz-meta-sha256 when the object carries one, the MD5 against
   * `expectedMd5` (an original's name is its MD5).
   */
  async function downloadOnce(name: string, file: string, expectedMd5: string | undefined): Promise<number | null | 'mismatch'> {
    const object = await client.get(key(name));
    if (!object) return null;
    const out = createWriteStream(file, { flags: 'wx' });
    const sha256 = createHash('sha256');
    const md5 = expectedMd5 === undefined ? null : createHash('md5');
    let received = 0;
    object.body.on('data', (chunk: Buffer) => {
      received += chunk.length;
      sha256.update(chunk);
      md5?.update(chunk);
    });
    try {
      await pipeline(object.body, out);
    } catch (error) {
      if (!out.closed) await once(out, 'close').catch(() => {});
      throw new BucketUnavailable('GET (body)', null, error);
    }
    const expectedSha256 = object.meta.sha256;
    if (received !== object.size) return 'mismatch';
    if (expectedSha256 !== undefined && sha256.digest('hex') !== expectedSha256) return 'mismatch';
    if (md5 && md5.digest('hex') !== expectedMd5) return 'mismatch';
    return received;
  }

  return {
    client,
    cache,
    key,
    publicUrl: (name) => (settings.publicUrl === undefined ? undefined : `${settings.publicUrl}/${key(name).split('/').map(encodeURIComponent).join('/')}`),

    async download(name, file, expectedMd5) {
      // A copy that does not match its checksum is fetched once more (a service
      // that answers a read racing a write), then refused: never cached, never served.
      for (let attempt = 1; ; attempt++) {
        const outcome = await downloadOnce(name, file, expectedMd5);
        if (outcome !== 'mismatch') return outcome;
        await rm(file, { force: true });
        if (attempt === DOWNLOAD_ATTEMPTS) throw new BucketUnavailable(`GET (${name}: the bytes do not match their checksum)`, null);
        log.warn('object did not match its checksum, reading it again', { name });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },

    ready() {
      const at = now();
      if (!probed || at - probed.at > PROBE_CACHE_MS) probed = { at, ready: probe() };
      return probed.ready;
    },

    async close() {
      await cache.close();
      await client.close();
    },
  };
}
