// STORAGE_URL and the S3_* settings: the disk by default, a bucket when asked, and
// one line naming the variable for every mistake.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadImghostSettings } from '../../../src/services/imghost/settings.js';
import { ConfigError } from '../../../src/settings/env.js';

const Settings = suite('storage settings');
const KEYS = { S3_ACCESS_KEY_ID: 'AKID', S3_SECRET_ACCESS_KEY: 'secret' };

Settings('unset, files stay on the disk', () => {
  assert.equal(loadImghostSettings({}).storage, { kind: 'disk' });
});

Settings('a bucket: endpoint, region, path style, prefix, cache and public URL read', () => {
  const storage = loadImghostSettings({
    ...KEYS,
    DATA_DIR: '/srv/data',
    STORAGE_URL: 's3://my-bucket/images/prod/',
    S3_ENDPOINT: 'http://127.0.0.1:9000',
    S3_REGION: 'eu-west-1',
    S3_FORCE_PATH_STYLE: 'true',
    STORAGE_PUBLIC_URL: 'https://cdn.example/',
    STORAGE_CACHE_MAX_BYTES: '1000',
  }).storage;
  assert.equal(storage, {
    kind: 's3',
    s3: { endpoint: 'http://127.0.0.1:9000', region: 'eu-west-1', bucket: 'my-bucket', credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' }, forcePathStyle: true },
    prefix: 'images/prod',
    publicUrl: 'https://cdn.example',
    cacheDir: '/srv/data/cache',
    cacheMaxBytes: 1000,
  });
});

Settings('defaults: AWS endpoint of the region, virtual-host style, 1 GiB cache, no prefix', () => {
  const storage = loadImghostSettings({ ...KEYS, STORAGE_URL: 's3://bucket-1' }).storage;
  assert.ok(storage.kind === 's3');
  if (storage.kind !== 's3') return;
  assert.is(storage.s3.endpoint, 'https://s3.us-east-1.amazonaws.com');
  assert.is(storage.s3.forcePathStyle, false);
  assert.is(storage.prefix, '');
  assert.is(storage.cacheMaxBytes, 1024 * 1024 * 1024);
});

const refused = [
  { what: 'an S3 setting without STORAGE_URL', env: { S3_ENDPOINT: 'http://127.0.0.1:9000' }, variable: 'S3_ENDPOINT' },
  { what: 'a URL that is not s3://', env: { ...KEYS, STORAGE_URL: 'https://bucket/prefix' }, variable: 'STORAGE_URL' },
  { what: 'a bucket name with capitals', env: { ...KEYS, STORAGE_URL: 's3://MyBucket/x' }, variable: 'STORAGE_URL' },
  { what: 'a prefix climbing out', env: { ...KEYS, STORAGE_URL: 's3://bucket/a/../b' }, variable: 'STORAGE_URL' },
  { what: 'a prefix with an empty segment', env: { ...KEYS, STORAGE_URL: 's3://bucket/a//b' }, variable: 'STORAGE_URL' },
  { what: 'no access key id', env: { S3_SECRET_ACCESS_KEY: 's', STORAGE_URL: 's3://bucket' }, variable: 'S3_ACCESS_KEY_ID' },
  { what: 'no secret', env: { S3_ACCESS_KEY_ID: 'a', STORAGE_URL: 's3://bucket' }, variable: 'S3_SECRET_ACCESS_KEY' },
  { what: 'an endpoint that is not http(s)', env: { ...KEYS, STORAGE_URL: 's3://bucket', S3_ENDPOINT: 'ftp://x' }, variable: 'S3_ENDPOINT' },
  { what: 'an endpoint with a path', env: { ...KEYS, STORAGE_URL: 's3://bucket', S3_ENDPOINT: 'http://x:9000/bucket' }, variable: 'S3_ENDPOINT' },
  { what: 'a region with spaces', env: { ...KEYS, STORAGE_URL: 's3://bucket', S3_REGION: 'us east' }, variable: 'S3_REGION' },
  { what: 'path style not a boolean', env: { ...KEYS, STORAGE_URL: 's3://bucket', S3_FORCE_PATH_STYLE: 'maybe' }, variable: 'S3_FORCE_PATH_STYLE' },
  { what: 'a dotted bucket over https in virtual-host style', env: { ...KEYS, STORAGE_URL: 's3://my.bucket' }, variable: 'S3_FORCE_PATH_STYLE' },
  { what: 'a cache size that is not a number', env: { ...KEYS, STORAGE_URL: 's3://bucket', STORAGE_CACHE_MAX_BYTES: '1GB' }, variable: 'STORAGE_CACHE_MAX_BYTES' },
  { what: 'a public URL that is not http(s)', env: { ...KEYS, STORAGE_URL: 's3://bucket', STORAGE_PUBLIC_URL: 'cdn.example' }, variable: 'STORAGE_PUBLIC_URL' },
];

for (const row of refused) {
  Settings(`refused: ${row.what}`, () => {
    assert.throws(() => loadImghostSettings(row.env), (error: unknown) => error instanceof ConfigError && error.variable === row.variable);
  });
}

Settings.run();
