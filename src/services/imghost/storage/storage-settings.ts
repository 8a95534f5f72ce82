import { join } from 'node:path';
import { booleanFrom, ConfigError, httpUrl, secretFrom, type EnvReader } from '../../../settings/env.js';
import type { S3Config } from './s3-client.js';

/** Where the image host keeps its files: the local disk (the default) or an S3-compatible bucket. */
export type StorageSettings = { kind: 'disk' } | S3StorageSettings;

export interface S3StorageSettings {
  kind: 's3';
  s3: S3Config;
  /** Key prefix inside the bucket, without slashes at either end ('' for none). */
  prefix: string;
  /** STORAGE_PUBLIC_URL: reads answer a redirect to this base + the object's key. */
  publicUrl: string | undefined;
  /** Hot objects kept on local disk ($DATA_DIR/cache), least recently used evicted past this. */
  cacheDir: string;
  cacheMaxBytes: number;
}

/** 1 GiB: some thousands of originals and previews at today's sizes. */
export const DEFAULT_CACHE_MAX_BYTES = 1024 * 1024 * 1024;

const S3_VARIABLES = ['S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE', 'STORAGE_PUBLIC_URL', 'STORAGE_CACHE_MAX_BYTES'];
/** S3 bucket naming rules: 3-63 lower-case letters, digits, dots and hyphens. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const PREFIX = /^[A-Za-z0-9._\-/]{0,200}$/;
const REGION = /^[a-z0-9-]{1,32}$/;

export function loadStorageSettings(read: EnvReader, dataDir: string): StorageSettings {
  const url = read('STORAGE_URL');
  if (url === undefined) {
    const stray = S3_VARIABLES.find((name) => read(name) !== undefined);
    if (stray) throw new ConfigError(stray, 'is set, but STORAGE_URL is not: set STORAGE_URL=s3://<bucket>/<prefix> to keep files in a bucket');
    return { kind: 'disk' };
  }
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(url);
  if (!match) throw new ConfigError('STORAGE_URL', `must be s3://<bucket>/<prefix> (got "${url}")`);
  const bucket = match[1]!;
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (!BUCKET.test(bucket)) throw new ConfigError('STORAGE_URL', `"${bucket}" is not a bucket name (3-63 lower-case letters, digits, dots, hyphens)`);
  if (!PREFIX.test(prefix) || (prefix !== '' && prefix.split('/').some((part) => part === '' || part === '.' || part === '..'))) {
    throw new ConfigError('STORAGE_URL', 'the prefix may hold letters, digits, ".", "_", "-" and single "/" between names, at most 200 characters');
  }
  const region = read('S3_REGION') ?? 'us-east-1';
  if (!REGION.test(region)) throw new ConfigError('S3_REGION', `must be a region name such as us-east-1 (got "${region}")`);
  const accessKeyId = secretFrom('S3_ACCESS_KEY_ID', read('S3_ACCESS_KEY_ID'));
  const secretAccessKey = secretFrom('S3_SECRET_ACCESS_KEY', read('S3_SECRET_ACCESS_KEY'));
  if (accessKeyId === undefined) throw new ConfigError('S3_ACCESS_KEY_ID', 'is required with STORAGE_URL=s3://...');
  if (secretAccessKey === undefined) throw new ConfigError('S3_SECRET_ACCESS_KEY', 'is required with STORAGE_URL=s3://...');
  const endpoint = httpUrl('S3_ENDPOINT', read('S3_ENDPOINT') ?? `https://s3.${region}.amazonaws.com`);
  if (new URL(endpoint).pathname !== '/') throw new ConfigError('S3_ENDPOINT', 'must be the service origin, without a path (the bucket goes in STORAGE_URL)');
  const forcePathStyle = booleanFrom('S3_FORCE_PATH_STYLE', read('S3_FORCE_PATH_STYLE') ?? 'false');
  if (!forcePathStyle && bucket.includes('.') && endpoint.startsWith('https:')) {
    throw new ConfigError('S3_FORCE_PATH_STYLE', `must be true for a bucket name with dots ("${bucket}"): its virtual-host name does not match the service's TLS certificate`);
  }
  const publicText = read('STORAGE_PUBLIC_URL');
  const cacheText = read('STORAGE_CACHE_MAX_BYTES') ?? String(DEFAULT_CACHE_MAX_BYTES);
  if (!/^\d{1,15}$/.test(cacheText)) throw new ConfigError('STORAGE_CACHE_MAX_BYTES', `must be a whole number of bytes, 0 for no cache (got "${cacheText}")`);
  return {
    kind: 's3',
    s3: { endpoint, region, bucket, credentials: { accessKeyId, secretAccessKey }, forcePathStyle },
    prefix,
    publicUrl: publicText === undefined ? undefined : httpUrl('STORAGE_PUBLIC_URL', publicText),
    cacheDir: join(dataDir, 'cache'),
    cacheMaxBytes: Number(cacheText),
  };
}
