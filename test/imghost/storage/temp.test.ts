// Temporary files: names say who writes them, start-up removes only what a writer
// that is gone left behind (several image hosts may share one data folder), and a
// stop never leaves one.
import { spawn } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  currentOwner,
  isOrphan,
  ownerOf,
  processStart,
  STALE_TEMP_MS,
  tempName,
  type TempOwner,
} from '../../../src/services/imghost/storage/temp-files.js';
import { listFiles, waitFor } from '../../fixtures/images/client.js';
import { makePng } from '../../fixtures/images/generate.js';
import { startTestImghost, tempDir } from '../../helpers/servers.js';

const Temp = suite('temporary files');

const self = currentOwner();
const HOUR = 60 * 60 * 1000;

/** A process that runs until killed, and the pid of one that has exited. */
async function livingAndDeadPids(): Promise<{ living: number; dead: number; stop: () => void }> {
  const sleeper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const quick = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => quick.once('exit', resolve));
  await waitFor(async () => processStart(sleeper.pid!) !== null);
  return { living: sleeper.pid!, dead: quick.pid!, stop: () => sleeper.kill('SIGKILL') };
}

Temp('a temp name carries host, pid and start time, and parses back', () => {
  const name = tempName(self, 'part');
  assert.equal(ownerOf(name), self);
  assert.is(ownerOf('0123456789abcdef0123456789abcdef.part'), null, 'an older random name has no writer');
});

Temp('isOrphan: only a writer provably gone, or a file far older than any live write', async () => {
  const pids = await livingAndDeadPids();
  try {
    const living: TempOwner = { host: self.host, pid: pids.living, start: processStart(pids.living)! };
    const now = Date.now();
    const rows: Array<{ what: string; writer: TempOwner | null; ageMs: number; orphan: boolean }> = [
      { what: 'this process', writer: self, ageMs: 2 * HOUR, orphan: false },
      { what: 'this pid, another start time (a restart that reused the pid)', writer: { ...self, start: '1' }, ageMs: 0, orphan: true },
      { what: 'a live process of this host', writer: living, ageMs: 2 * HOUR, orphan: false },
      { what: 'a live pid started at another time (pid reused)', writer: { ...living, start: '1' }, ageMs: 0, orphan: true },
      { what: 'an exited process of this host', writer: { host: self.host, pid: pids.dead, start: '1' }, ageMs: 0, orphan: true },
      { what: 'another host, fresh', writer: { host: 'other-host', pid: pids.dead, start: '1' }, ageMs: 1000, orphan: false },
      { what: 'another host, older than STALE_TEMP_MS', writer: { host: 'other-host', pid: 1, start: '1' }, ageMs: STALE_TEMP_MS + 1000, orphan: true },
      { what: 'an unattributable name, fresh', writer: null, ageMs: 1000, orphan: false },
      { what: 'an unattributable name, older than STALE_TEMP_MS', writer: null, ageMs: STALE_TEMP_MS + 1000, orphan: true },
    ];
    for (const row of rows) assert.is(isOrphan(row.writer, now - row.ageMs, self, now), row.orphan, row.what);
  } finally {
    pids.stop();
  }
});

Temp('start-up removes what dead writers left and keeps what live ones are writing', async () => {
  const pids = await livingAndDeadPids();
  try {
    const dataDir = tempDir('lw-sweep-');
    const tmp = join(dataDir, 'images', '.tmp');
    mkdirSync(tmp, { recursive: true });
    const files = {
      dead: tempName({ host: self.host, pid: pids.dead, start: '1' }, 'part'),
      reusedPid: tempName({ ...self, start: '1' }, 'webp'),
      living: tempName({ host: self.host, pid: pids.living, start: processStart(pids.living)! }, 'part'),
      otherHostFresh: tempName({ host: 'other-host', pid: 1, start: '1' }, 'part'),
      legacyOld: '0123456789abcdef0123456789abcdef.part',
    };
    for (const name of Object.values(files)) writeFileSync(join(tmp, name), 'partial');
    const old = (Date.now() - 2 * HOUR) / 1000;
    utimesSync(join(tmp, files.legacyOld), old, old);

    const server = await startTestImghost({ DATA_DIR: dataDir });
    try {
      assert.equal(await listFiles(tmp), [files.living, files.otherHostFresh].sort());
    } finally {
      await server.close();
    }
  } finally {
    pids.stop();
  }
});

Temp('temporary files: a second image host on the same data folder keeps the first one\'s upload in progress, and a stop removes it', async () => {
  const dataDir = tempDir('lw-shared-');
  const tmp = join(dataDir, 'images', '.tmp');
  const first = await startTestImghost({ DATA_DIR: dataDir });
  const target = new URL(first.url);
  const socket = connect(Number(target.port), target.hostname);
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    'POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000000\r\n\r\n' +
      '--b\r\nContent-Disposition: form-data; name="image"; filename="x.png"\r\n\r\n',
  );
  socket.write((await makePng(7100, 256, 256)).subarray(0, 20_000));
  assert.ok(await waitFor(async () => (await listFiles(tmp)).length === 1), 'temp file never appeared');
  const writing = await listFiles(tmp);

  const second = await startTestImghost({ DATA_DIR: dataDir });
  assert.equal(await listFiles(tmp), writing, 'the second process removed a live upload');
  await second.close();

  // The stalled client is cut off by the stop (grace 1 s in tests); nothing stays.
  await first.close();
  socket.destroy();
  assert.equal(await listFiles(tmp), []);
});

Temp.run();
