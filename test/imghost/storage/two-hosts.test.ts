// Two image host processes, each with its own data folder, on one bucket: what one
// stores the other serves, previews and reads by range; a preview is made at most
// once per host, and both serve the same bytes for it.
import { createHash, randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { upload } from '../../fixtures/images/client.js';
import { makeJpeg } from '../../fixtures/images/generate.js';
import { startImghostProcess, type ImghostProcess } from '../../helpers/imghost-process.js';
import { startTestBucket, type TestBucket } from '../../helpers/s3-bucket.js';
import { tempDir } from '../../helpers/servers.js';
import { buildZip } from '../../helpers/zip-writer.js';

const METRICS_TOKEN = 'two-hosts-metrics';
const TwoHosts = suite('two image hosts on one bucket');
let bucket: TestBucket;
let a: ImghostProcess;
let b: ImghostProcess;
const bodyOf = async (res: Response) => Buffer.from(await res.arrayBuffer());

async function conversions(host: ImghostProcess): Promise<number> {
  const text = await (await fetch(host.url + '/metrics', { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  return Number(/^imghost_webp_conversions_total (\d+)$/m.exec(text)?.[1]);
}

TwoHosts.before(async () => {
  bucket = await startTestBucket();
  const env = { ...bucket.env('shared'), METRICS_TOKEN };
  [a, b] = await Promise.all([startImghostProcess(tempDir(), env), startImghostProcess(tempDir(), env)]);
});

TwoHosts.after(async () => {
  for (const host of [a, b]) {
    if (!host) continue;
    host.child.kill('SIGTERM');
    await host.exited;
  }
  await bucket?.close();
});

TwoHosts('an image uploaded through one host is served by the other, byte for byte, and by range', async () => {
  const jpeg = await makeJpeg(7, 120, 90);
  const answer = await upload(a.url, jpeg, 'a.jpg');
  assert.is(answer.status, 200);
  const res = await fetch(b.url + answer.body.data.url);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'image/jpeg');
  assert.ok((await bodyOf(res)).equals(jpeg));
  // Read by range through the other host, straight from the bucket or its cache.
  const part = await fetch(b.url + answer.body.data.url, { headers: { Range: 'bytes=100-199' } });
  assert.is(part.status, 206);
  assert.is(part.headers.get('content-range'), `bytes 100-199/${jpeg.length}`);
  assert.ok((await bodyOf(part)).equals(jpeg.subarray(100, 200)));
});

TwoHosts('concurrent first preview requests on both hosts: at most one conversion per host, the same bytes from each', async () => {
  const jpeg = await makeJpeg(8, 160, 120);
  const answer = await upload(a.url, jpeg, 'a.jpg');
  const before = [await conversions(a), await conversions(b)];
  const answers = await Promise.all([a, b, a, b, a, b, a, b].map((host) => fetch(host.url + answer.body.data.webpUrl)));
  const bodies = await Promise.all(answers.map(bodyOf));
  for (const [index, res] of answers.entries()) {
    assert.is(res.status, 200, `request ${index}`);
    assert.ok(bodies[index]!.equals(bodies[0]!), `request ${index} got other bytes`);
  }
  const made = [(await conversions(a)) - before[0]!, (await conversions(b)) - before[1]!];
  assert.ok(made[0]! <= 1 && made[1]! <= 1, `conversions per host: ${made}`);
  assert.ok(made[0]! + made[1]! >= 1);
  // Made already: a later request on either host converts nothing.
  await fetch(b.url + answer.body.data.webpUrl).then(bodyOf);
  assert.is((await conversions(b)) - before[1]!, made[1]);
});

TwoHosts('a preview made by one host is found in the bucket by the other, not made again', async () => {
  const jpeg = await makeJpeg(9, 100, 80);
  const answer = await upload(b.url, jpeg, 'a.jpg');
  const first = await fetch(b.url + answer.body.data.webpUrl);
  assert.is(first.status, 200);
  const webp = await bodyOf(first);
  const before = await conversions(a);
  const second = await fetch(a.url + answer.body.data.webpUrl);
  assert.is(second.status, 200);
  assert.ok((await bodyOf(second)).equals(webp));
  assert.is(await conversions(a), before);
});

TwoHosts('a package uploaded through one host is read whole and by range through the other', async () => {
  const zip = buildZip([
    { name: 'plugin.json', data: Buffer.from('{"id":"two"}') },
    { name: 'blob.bin', data: randomBytes(30_000), method: 0 },
  ]);
  const sha = createHash('sha256').update(zip).digest('hex');
  const stored = await fetch(a.url + '/api/packages', { method: 'POST', body: new Uint8Array(zip), headers: { 'Content-Type': 'application/zip' } });
  assert.is(stored.status, 201);
  const whole = await fetch(`${b.url}/pkg/${sha}/two.zip`);
  assert.is(whole.status, 200);
  assert.ok((await bodyOf(whole)).equals(zip));
  const part = await fetch(`${b.url}/pkg/${sha}/two.zip`, { headers: { Range: 'bytes=1000-1999' } });
  assert.is(part.status, 206);
  assert.is(part.headers.get('content-range'), `bytes 1000-1999/${zip.length}`);
  assert.ok((await bodyOf(part)).equals(zip.subarray(1000, 2000)));
});

TwoHosts.run();
