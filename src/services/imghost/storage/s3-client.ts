import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { Agent, request, type Dispatcher } from 'undici';
import { BucketUnavailable } from './bucket-unavailable.js';
import { amzDateOf, EMPTY_SHA256, sign, signingKeys, uriEncode, type Credentials } from './sigv4.js';

// The few S3 calls the image host makes (PUT, GET with Range, HEAD, DELETE, and a
// HEAD of the bucket for /readyz), over undici, signed with SigV4 (sigv4.ts). Any
// S3-compatible service: AWS S3, MinIO, Ceph RGW, Cloudflare R2, Garage.

export interface S3Config {
  /** http(s)://host[:port], no path. */
  endpoint: string;
  region: string;
  bucket: string;
  credentials: Credentials;
  /** https://endpoint/bucket/key instead of https://bucket.endpoint/key (MinIO, most self-hosted services). */
  forcePathStyle: boolean;
}

/** Connecting, a first byte, a stalled body: past these the bucket counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 2_000;
/** A write's answer: the service may hash a large body before it answers. */
export const HEADERS_TIMEOUT_MS = 10_000;
/**
 * A read's (GET, HEAD) first byte: a bucket that accepts connections but does not
 * answer (hung, not refused) kept a visitor's image waiting 10 s for its 503; a
 * live service answers a read in milliseconds, so this is a generous bound.
 */
export const READ_HEADERS_TIMEOUT_MS = 3_000;
export const BODY_TIMEOUT_MS = 30_000;
/** An error answer's body is read for the log only, this much at most. */
const ERROR_BODY_BYTES = 1_024;

export interface ObjectInfo {
  size: number;
  /** x-amz-meta-* headers, names without the prefix, lower case. */
  meta: Record<string, string>;
}

export interface ObjectBody extends ObjectInfo {
  /** 200 for the whole object, 206 for the range asked. */
  status: 200 | 206;
  /** From Content-Range on a 206: the whole object's size. */
  totalSize: number;
  body: Readable;
}

export interface PutOptions {
  contentType: string;
  /** Hex SHA-256 of the file: signed, so the service refuses other bytes. */
  sha256?: string;
  /** Hex MD5 of the file, sent as Content-MD5 for the same check where only that is known. */
  md5?: string;
  meta?: Record<string, string>;
}

export type S3Client = ReturnType<typeof createS3Client>;

export function createS3Client(config: S3Config) {
  const endpoint = new URL(config.endpoint);
  const host = config.forcePathStyle ? endpoint.host : `${config.bucket}.${endpoint.host}`;
  const base = `${endpoint.protocol}//${host}`;
  const bucketPath = config.forcePathStyle ? `/${uriEncode(config.bucket)}` : '';
  const keyFor = signingKeys(config.credentials, config.region, 's3');
  const agent = new Agent({
    connect: { timeout: CONNECT_TIMEOUT_MS },
    headersTimeout: HEADERS_TIMEOUT_MS,
    bodyTimeout: BODY_TIMEOUT_MS,
    keepAliveTimeout: 4_000,
  });

  async function send(
    operation: string,
    method: Dispatcher.HttpMethod,
    key: string | null,
    headers: Record<string, string>,
    payloadHash: string,
    body?: Readable | Buffer,
  ): Promise<Dispatcher.ResponseData> {
    const path = key === null ? bucketPath || '/' : `${bucketPath}/${uriEncode(key, true)}`;
    const amzDate = amzDateOf(new Date());
    const signedHeaders = { ...headers, host, 'x-amz-date': amzDate, 'x-amz-content-sha256': payloadHash };
    const signed = sign({ method, path, headers: signedHeaders, payloadHash, region: config.region, service: 's3', amzDate, credentials: config.credentials }, keyFor(amzDate));
    try {
      return await request(base + path, {
        method,
        headers: { ...signedHeaders, authorization: signed.authorization },
        body: body ?? null,
        dispatcher: agent,
        headersTimeout: method === 'GET' || method === 'HEAD' ? READ_HEADERS_TIMEOUT_MS : HEADERS_TIMEOUT_MS,
      });
    } catch (error) {
      if (body && !Buffer.isBuffer(body)) body.destroy();
      throw new BucketUnavailable(operation, null, error);
    }
  }

  /** Reads (a little of) a failure's body for the log, and throws. */
  async function fail(operation: string, response: Dispatcher.ResponseData): Promise<never> {
    let detail = '';
    try {
      for await (const chunk of response.body) {
        detail += String(chunk);
        if (detail.length >= ERROR_BODY_BYTES) break;
      }
    } catch {
      // The body is only for the message.
    }
    response.body.destroy();
    const code = /<Code>([^<]{1,64})<\/Code>/.exec(detail)?.[1];
    throw new BucketUnavailable(code ? `${operation} (${code})` : operation, response.statusCode);
  }

  const discard = (response: Dispatcher.ResponseData) => response.body.dump().catch(() => {});

  function infoOf(headers: Dispatcher.ResponseData['headers']): ObjectInfo {
    const meta: Record<string, string> = Object.create(null);
    for (const [name, value] of Object.entries(headers)) {
      if (name.startsWith('x-amz-meta-') && typeof value === 'string') meta[name.slice(11)] = value;
    }
    return { size: Number(headers['content-length'] ?? 0), meta };
  }

  return {
    /**
     * Stores a complete local file (or a few bytes) under `key`. With If-None-Match: * the service
     * refuses to replace an object that exists (412, or 409 while another PUT of
     * the same key is in flight): 'exists'. Services that ignore the header simply
     * store the same bytes again, which content addressing makes harmless.
     */
    async put(key: string, file: string | Buffer, size: number, options: PutOptions): Promise<'stored' | 'exists'> {
      const headers: Record<string, string> = {
        'content-type': options.contentType,
        'content-length': String(size),
        'if-none-match': '*',
      };
      if (options.md5) headers['content-md5'] = Buffer.from(options.md5, 'hex').toString('base64');
      for (const [name, value] of Object.entries(options.meta ?? {})) headers[`x-amz-meta-${name}`] = value;
      const body = typeof file === 'string' ? createReadStream(file) : file;
      const response = await send('PUT', 'PUT', key, headers, options.sha256 ?? 'UNSIGNED-PAYLOAD', body);
      if (response.statusCode === 412 || response.statusCode === 409) {
        await discard(response);
        return 'exists';
      }
      if (response.statusCode !== 200) return fail('PUT', response);
      await discard(response);
      return 'stored';
    },

    /** The object, or the inclusive byte range of it; null when there is no such object. */
    async get(key: string, range?: { start: number; end: number }): Promise<ObjectBody | null> {
      const headers: Record<string, string> = range ? { range: `bytes=${range.start}-${range.end}` } : {};
      const response = await send('GET', 'GET', key, headers, EMPTY_SHA256);
      if (response.statusCode === 404) {
        await discard(response);
        return null;
      }
      if (response.statusCode !== 200 && response.statusCode !== 206) return fail('GET', response);
      const info = infoOf(response.headers);
      const contentRange = /\/(\d+)$/.exec(String(response.headers['content-range'] ?? ''));
      const totalSize = response.statusCode === 206 && contentRange ? Number(contentRange[1]) : info.size;
      return { ...info, status: response.statusCode, totalSize, body: response.body };
    },

    async head(key: string): Promise<ObjectInfo | null> {
      const response = await send('HEAD', 'HEAD', key, {}, EMPTY_SHA256);
      await discard(response);
      if (response.statusCode === 404) return null;
      if (response.statusCode !== 200) throw new BucketUnavailable('HEAD', response.statusCode);
      return infoOf(response.headers);
    },

    async delete(key: string): Promise<void> {
      const response = await send('DELETE', 'DELETE', key, {}, EMPTY_SHA256);
      if (response.statusCode !== 204 && response.statusCode !== 200 && response.statusCode !== 404) return fail('DELETE', response);
      await discard(response);
    },

    /** HEAD of the bucket: it exists and these keys may use it. Throws BucketUnavailable. */
    async probe(): Promise<void> {
      const response = await send('HEAD bucket', 'HEAD', null, {}, EMPTY_SHA256);
      await discard(response);
      if (response.statusCode !== 200) throw new BucketUnavailable('HEAD bucket', response.statusCode);
    },

    close: () => agent.close(),
  };
}
