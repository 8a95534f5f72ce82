// An S3-protocol server for tests: s3rver from npm, in this process, on a random
// port with its own temp folder and one bucket. It knows one key pair (S3RVER /
// S3RVER) and refuses other key ids, but does not check V4 signatures themselves:
// the signer is checked against AWS's test suite (storage/sigv4.test.ts).
// stop() and start() take the bucket away and bring it back on the same port, with
// its objects, as an outage would.
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  httpServer: Server;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

export const TEST_BUCKET = 'launcher-test';
export const S3RVER_KEY = 'S3RVER';

export interface TestBucket {
  endpoint: string;
  port: number;
  directory: string;
  /** The image host's settings for this bucket, under `prefix`. */
  env(prefix?: string): Record<string, string>;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startTestBucket(): Promise<TestBucket> {
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  let server: S3rverInstance | null = null;
  let port = 0;
  const run = async () => {
    server = new S3rver({ port, address: '127.0.0.1', directory, silent: true, configureBuckets: [{ name: TEST_BUCKET }] });
    port = (await server.run()).port;
  };
  const stop = async () => {
    const running = server;
    server = null;
    if (!running) return;
    const closed = new Promise((resolve) => running.httpServer.close(resolve));
    running.httpServer.closeAllConnections();
    await closed;
  };
  await run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    port,
    directory,
    env: (prefix = 'images') => ({
      STORAGE_URL: `s3://${TEST_BUCKET}/${prefix}`,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: S3RVER_KEY,
      S3_SECRET_ACCESS_KEY: S3RVER_KEY,
      S3_FORCE_PATH_STYLE: 'true',
    }),
    stop,
    start: run,
    async close() {
      await stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
