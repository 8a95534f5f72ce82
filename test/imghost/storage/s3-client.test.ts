// The S3 client against a real S3-protocol server (s3rver):
// store, read whole and by range, look up, delete, and what a stopped bucket does.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BucketUnavailable } from '../../../src/services/imghost/storage/bucket-unavailable.js';
import { createS3Client, type S3Client } from '../../../src/services/imghost/storage/s3-client.js';
import { S3RVER_KEY, startTestBucket, TEST_BUCKET, type TestBucket } from '../../helpers/s3-bucket.js';

const Client = suite('s3 client');
let bucket: TestBucket;
let client: S3Client;
let folder: string;
const bytes = randomBytes(70_000);
const hex = (algorithm: string, data: Buffer) => createHash(algorithm).update(data).digest('hex');

Client.before(async () => {
  bucket = await startTestBucket();
  folder = await mkdtemp(join(tmpdir(), 's3-client-'));
  await writeFile(join(folder, 'file'), bytes);
  client = createS3Client({
    endpoint: bucket.endpoint,
    region: 'us-east-1',
    bucket: TEST_BUCKET,
    credentials: { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY },
    forcePathStyle: true,
  });
});

Client.after(async () => {
  await client?.close();
  await bucket?.close();
  await rm(folder, { recursive: true, force: true });
});

const collect = async (body: NodeJS.ReadableStream) => {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

Client('put, then head and get the same bytes, with the metadata', async () => {
  const outcome = await client.put('p/ab/one.bin', join(folder, 'file'), bytes.length, {
    contentType: 'application/octet-stream',
    md5: hex('md5', bytes),
    meta: { sha256: hex('sha256', bytes) },
  });
  assert.is(outcome, 'stored');
  const info = await client.head('p/ab/one.bin');
  assert.equal(info && { size: info.size, sha256: info.meta.sha256 }, { size: bytes.length, sha256: hex('sha256', bytes) });
  const got = await client.get('p/ab/one.bin');
  assert.is(got?.status, 200);
  assert.ok((await collect(got!.body)).equals(bytes));
});

Client('a signed payload hash is accepted', async () => {
  assert.is(await client.put('p/ab/two.bin', join(folder, 'file'), bytes.length, { contentType: 'application/zip', sha256: hex('sha256', bytes) }), 'stored');
});

Client('get with a range answers 206 with those bytes and the whole size', async () => {
  for (const { what, start, end } of [
    { what: 'the start', start: 0, end: 9 },
    { what: 'the middle', start: 1000, end: 65_999 },
    { what: 'the last byte', start: bytes.length - 1, end: bytes.length - 1 },
  ]) {
    const got = await client.get('p/ab/one.bin', { start, end });
    assert.is(got?.status, 206, what);
    assert.is(got?.totalSize, bytes.length, what);
    assert.ok((await collect(got!.body)).equals(bytes.subarray(start, end + 1)), what);
  }
});

Client('a missing object is null for head and get', async () => {
  assert.is(await client.head('p/none'), null);
  assert.is(await client.get('p/none'), null);
});

Client('delete removes the object', async () => {
  await client.delete('p/ab/two.bin');
  assert.is(await client.head('p/ab/two.bin'), null);
});

Client('probe passes for the bucket and fails for a missing one', async () => {
  await client.probe();
  const other = createS3Client({ endpoint: bucket.endpoint, region: 'us-east-1', bucket: 'no-such-bucket', credentials: { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY }, forcePathStyle: true });
  try {
    await other.probe();
    assert.unreachable('probe of a missing bucket passed');
  } catch (error) {
    assert.instance(error, BucketUnavailable);
  } finally {
    await other.close();
  }
});

Client('an unknown key id is refused as a bucket failure, not taken as a missing object', async () => {
  const wrong = createS3Client({ endpoint: bucket.endpoint, region: 'us-east-1', bucket: TEST_BUCKET, credentials: { accessKeyId: 'UNKNOWN', secretAccessKey: S3RVER_KEY }, forcePathStyle: true });
  try {
    await wrong.get('p/ab/one.bin');
    assert.unreachable('a request with an unknown key id was answered');
  } catch (error) {
    assert.instance(error, BucketUnavailable);
    assert.is((error as BucketUnavailable).status, 403);
  } finally {
    await wrong.close();
  }
});

Client('a stopped bucket throws BucketUnavailable; started again, it answers', async () => {
  await bucket.stop();
  for (const [what, call] of [
    ['head', () => client.head('p/ab/one.bin')],
    ['get', () => client.get('p/ab/one.bin')],
    ['put', () => client.put('p/ab/three.bin', join(folder, 'file'), bytes.length, { contentType: 'application/zip' })],
    ['probe', () => client.probe()],
  ] as const) {
    try {
      await call();
      assert.unreachable(`${what} answered with the bucket stopped`);
    } catch (error) {
      assert.instance(error, BucketUnavailable, what);
      assert.is((error as BucketUnavailable).status, null, what);
    }
  }
  await bucket.start();
  const got = await client.get('p/ab/one.bin', { start: 0, end: 3 });
  assert.is(await text(got!.body), bytes.subarray(0, 4).toString());
});

Client.run();
