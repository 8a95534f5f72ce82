// A full disk: uploads and previews answer 507 and leave nothing behind, /readyz
// answers 503 while free space is below IMGHOST_MIN_FREE_BYTES. The ENOSPC tests
// use a real, small tmpfs mounted by the test, so the errors are the kernel's own;
// mounting needs root (CAP_SYS_ADMIN), and without it those tests are reported as
// skipped, with the reason, instead of passing.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { rm, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { listFiles, upload } from '../../fixtures/images/client.js';
import { makePng } from '../../fixtures/images/generate.js';
import { startTestImghost, tempDir, type TestServer } from '../../helpers/servers.js';

const Readiness = suite('/readyz and free space');

async function readyStatus(server: TestServer): Promise<number> {
  const res = await fetch(server.url + '/readyz');
  await res.arrayBuffer();
  return res.status;
}

Readiness('readiness that checks free space: /readyz is 503 below IMGHOST_MIN_FREE_BYTES (real statfs), 200 above', async () => {
  const dataDir = tempDir('lw-free-');
  mkdirSync(join(dataDir, 'images'), { recursive: true });
  const disk = await statfs(join(dataDir, 'images'));
  const free = disk.bavail * disk.bsize;
  const rows = [
    { what: 'a minimum far above the free space', min: String(free * 1000 + 1), status: 503 },
    { what: 'a minimum of 0', min: '0', status: 200 },
  ];
  for (const row of rows) {
    const server = await startTestImghost({ DATA_DIR: dataDir, IMGHOST_MIN_FREE_BYTES: row.min });
    try {
      assert.is(await readyStatus(server), row.status, row.what);
    } finally {
      await server.close();
    }
  }
});

Readiness.run();

// ---------------------------------------------------------------------------

const MOUNT_BYTES = 2 * 1024 * 1024;
const mountPoint = tempDir('lw-tmpfs-');
const mounted = tryMount();

function tryMount(): string | null {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${MOUNT_BYTES},mode=0700`, 'tmpfs', mountPoint], { stdio: 'pipe' });
    return null;
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error).trim();
  }
}

const DiskFull = suite('ENOSPC on a 2 MiB tmpfs');
let server: TestServer;
const images = join(mountPoint, 'images');
const filler = join(mountPoint, 'filler');

/** Fills the file system until `leave` bytes are free (to within a page). */
async function fillLeaving(leave: number): Promise<void> {
  await rm(filler, { force: true });
  const disk = await statfs(mountPoint);
  const size = Math.max(0, disk.bavail * disk.bsize - leave);
  await writeFile(filler, Buffer.alloc(size));
}

DiskFull.before(async () => {
  if (mounted !== null) return;
  server = await startTestImghost({ DATA_DIR: mountPoint, IMGHOST_MIN_FREE_BYTES: String(256 * 1024) });
});

DiskFull.after(async () => {
  if (mounted !== null) return;
  await server?.close();
  execFileSync('umount', ['-l', mountPoint]);
});

const onTmpfs = mounted === null ? DiskFull : DiskFull.skip;
if (mounted !== null) process.stdout.write(`skipping the tmpfs ENOSPC tests: cannot mount tmpfs (needs root): ${mounted}\n`);

onTmpfs('ENOSPC on a real tmpfs: an upload that does not fit gets 507 {success:false, message} and leaves no file', async () => {
  await fillLeaving(64 * 1024);
  const big = await makePng(9000, 400, 300); // noise: ~360 KB, more than is free
  assert.ok(big.length > 200 * 1024);
  const before = await listFiles(images);
  const answer = await upload(server.url, big, 'big.png');
  assert.is(answer.status, 507);
  assert.is(answer.body.success, false);
  assert.type(answer.body.message, 'string');
  assert.equal(await listFiles(images), before, 'a partial file was left behind');
  assert.equal(await listFiles(join(images, '.tmp')), []);
});

onTmpfs('ENOSPC on a real tmpfs: a first WebP conversion that does not fit gets 507 and leaves no file; it works once there is room', async () => {
  await rm(filler, { force: true });
  const answer = await upload(server.url, await makePng(9001, 300, 300), 'p.png');
  assert.is(answer.status, 200);
  await fillLeaving(0);
  const before = await listFiles(images);
  const res = await fetch(server.url + answer.body.data.webpUrl);
  assert.is(res.status, 507);
  assert.match(String(res.headers.get('content-type')), /^text\/plain/);
  await res.arrayBuffer();
  assert.equal(await listFiles(images), before, 'a partial preview was left behind');

  await rm(filler, { force: true });
  const retry = await fetch(server.url + answer.body.data.webpUrl);
  assert.is(retry.status, 200);
  assert.is(retry.headers.get('content-type'), 'image/webp');
});

onTmpfs('readiness that checks free space: /readyz turns 503 when the tmpfs fills and 200 when it empties', async () => {
  await rm(filler, { force: true });
  assert.is(await readyStatus(server), 200);
  await fillLeaving(128 * 1024);
  assert.is(await readyStatus(server), 503);
  await rm(filler, { force: true });
  assert.is(await readyStatus(server), 200);
});

DiskFull.run();
