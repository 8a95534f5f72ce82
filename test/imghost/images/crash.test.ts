// Files survive a crash: the image host is killed (SIGKILL) in the middle of uploads
// and first WebP conversions, restarted on the same data folder, and everything it
// answered 200 must still be there, byte for byte, with no partial file anywhere.
// (SIGKILL loses the process, not the page cache: what a power cut would lose is
// covered by the fsync before each rename and of the folder after, see storage/durable.ts.)
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { listFiles, upload, waitFor } from '../../fixtures/images/client.js';
import { makePng } from '../../fixtures/images/generate.js';
import type { FsCall } from '../../helpers/fs-trace.js';
import { startImghostProcess, type ImghostProcess } from '../../helpers/imghost-process.js';
import { tempDir } from '../../helpers/servers.js';

const Crash = suite('image host crash and stop');

const md5Of = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');
const CONCURRENT = 20;
/** Records the image host's fsyncs and renames, in order (see the helper). */
const FS_TRACER = fileURLToPath(new URL('../../helpers/fs-trace.js', import.meta.url));

type Outcome = { ok: true; status: number; bytes: Buffer } | { ok: false; error: unknown };

async function getBytes(url: string): Promise<Outcome> {
  try {
    const res = await fetch(url);
    return { ok: true, status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
  } catch (error) {
    return { ok: false, error };
  }
}

let running: ImghostProcess | undefined;

Crash.after.each(() => {
  running?.child.kill('SIGKILL');
  running = undefined;
});

Crash('crash: SIGKILL amid 20 uploads and 20 first WebP conversions loses no answered image and leaves no partial file', async () => {
  const dataDir = tempDir('lw-crash-');
  const imagesDir = join(dataDir, 'images');
  running = await startImghostProcess(dataDir);
  const first = running;

  // Originals whose previews will be converting when the process dies.
  const toConvert = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => makePng(5000 + i, 640, 480)));
  const converted: string[] = [];
  for (const bytes of toConvert) {
    const answer = await upload(first.url, bytes, 'c.png');
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    converted.push(answer.body.data.webpUrl);
  }
  const toUpload = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => makePng(6000 + i, 480, 360)));

  let answered = 0;
  const uploads = toUpload.map((bytes) =>
    upload(first.url, bytes, 'u.png').then(
      (answer) => {
        answered++;
        return { answer, bytes };
      },
      () => null,
    ),
  );
  const previews = converted.map((url) =>
    getBytes(first.url + url).then((outcome) => {
      if (outcome.ok) answered++;
      return outcome;
    }),
  );
  // Kill as soon as the first answers are in: the rest is mid-flight.
  assert.ok(await waitFor(async () => answered >= 2, 30_000), 'no answer before the kill');
  first.child.kill('SIGKILL');
  const uploadResults = await Promise.all(uploads);
  const previewResults = await Promise.all(previews);
  await first.exited;
  running = undefined;

  const answeredUploads = uploadResults.filter((result) => result !== null && result.answer.status === 200);
  const answeredPreviews = previewResults
    .map((outcome, i) => ({ outcome, url: converted[i]! }))
    .filter((entry) => entry.outcome.ok && entry.outcome.status === 200);
  const cutOff = uploadResults.filter((result) => result === null).length + previewResults.filter((outcome) => !outcome.ok).length;
  assert.ok(cutOff > 0, 'the kill came after every request was answered: nothing was in flight');
  assert.ok(answeredUploads.length + answeredPreviews.length > 0);

  running = await startImghostProcess(dataDir);
  const second = running;
  assert.equal(await listFiles(join(imagesDir, '.tmp')), [], 'temp folder not empty after start');

  for (const { answer, bytes } of answeredUploads as Array<{ answer: { body: any }; bytes: Buffer }>) {
    const served = await getBytes(second.url + answer.body.data.url);
    assert.ok(served.ok && served.status === 200, `answered upload ${answer.body.data.md5} is gone`);
    assert.ok(served.ok && served.bytes.equals(bytes), `answered upload ${answer.body.data.md5} changed`);
  }
  for (const { outcome, url } of answeredPreviews) {
    const served = await getBytes(second.url + url);
    assert.ok(served.ok && served.status === 200, `answered preview ${url} is gone`);
    assert.ok(served.ok && outcome.ok && served.bytes.equals(outcome.bytes), `answered preview ${url} changed`);
  }

  // Every file in place is whole: an original hashes to its name, a preview decodes.
  const stored = (await listFiles(imagesDir)).filter((path) => !path.startsWith('.tmp'));
  assert.ok(stored.length >= CONCURRENT + answeredUploads.length);
  for (const path of stored) {
    const bytes = await readFile(join(imagesDir, path));
    assert.ok(bytes.length > 0, `zero-length file ${path}`);
    const name = basename(path);
    if (name.endsWith('.preview.webp')) {
      await sharp(bytes, { failOn: 'error' }).raw().toBuffer().catch((error) => assert.unreachable(`partial preview ${path}: ${error}`));
    } else {
      assert.is(md5Of(bytes), name.split('.')[0], `partial original ${path}`);
    }
  }

  // What was cut off is simply not there yet: the previews convert now.
  for (const url of converted) {
    const served = await getBytes(second.url + url);
    assert.ok(served.ok && served.status === 200, `preview ${url} after restart`);
  }
});

Crash('temporary files: SIGTERM during a stalled upload leaves no temp file and exits 0', async () => {
  const dataDir = tempDir('lw-stop-');
  const tmp = join(dataDir, 'images', '.tmp');
  running = await startImghostProcess(dataDir);
  const target = new URL(running.url);
  const boundary = 'stalled';
  const socket = connect(Number(target.port), target.hostname);
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 1000000\r\n\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="x.png"\r\nContent-Type: image/png\r\n\r\n`,
  );
  socket.write((await makePng(7000, 256, 256)).subarray(0, 20_000));
  assert.ok(await waitFor(async () => (await listFiles(tmp)).length === 1, 10_000), 'the upload never reached its temp file');

  // The client stalls; the process is stopped. Its grace period (10 s) runs out,
  // the connection is cut, and the upload's temp file must go with it.
  running.child.kill('SIGTERM');
  const code = await running.exited;
  running = undefined;
  socket.destroy();
  assert.is(code, 0);
  assert.equal(await listFiles(tmp), []);
});

Crash('durable commit: an upload and its preview are fsync\'d before their rename, and their folder after', async () => {
  const dataDir = tempDir('lw-fsync-');
  const trace = join(tempDir('lw-trace-'), 'trace');
  const host = await startImghostProcess(dataDir, { FS_TRACE: trace }, ['--import', FS_TRACER]);
  running = host;
  const bytes = await makePng(7200);
  const answer = await upload(host.url, bytes, 'durable.png');
  assert.is(answer.status, 200);
  const preview = await getBytes(host.url + answer.body.data.webpUrl);
  assert.ok(preview.ok && preview.status === 200);
  process.kill(host.pid, 'SIGTERM');
  await host.exited;
  running = undefined;

  // The tracer writes each line as the call starts (rename) or completes (sync,
  // renamed), so the order of the lines is the order the calls ran in.
  const calls = (await readFile(trace, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as FsCall);
  const md5 = answer.body.data.md5 as string;
  const shard = join(dataDir, 'images', md5.slice(0, 2));
  for (const final of [join(shard, `${md5}.png`), join(shard, `${md5}.preview.webp`)]) {
    const renamed = calls.findIndex((entry) => entry.call === 'rename' && entry.to === final);
    assert.ok(renamed !== -1, `no rename into ${final}`);
    const temp = (calls[renamed] as { from: string }).from;
    assert.ok(temp.startsWith(join(dataDir, 'images', '.tmp') + '/'), `renamed from ${temp}`);
    const done = calls.findIndex((entry) => entry.call === 'renamed' && entry.to === final);
    const fileSynced = calls.findIndex((entry) => entry.call === 'sync' && entry.path === temp);
    const dirSynced = calls.findIndex((entry, i) => i > done && entry.call === 'sync' && entry.path === shard);
    assert.ok(fileSynced !== -1 && fileSynced < renamed, `${final}: no fsync of the temp file before the rename`);
    assert.ok(dirSynced !== -1, `${final}: no fsync of its folder after the rename`);
  }
});

Crash.run();
