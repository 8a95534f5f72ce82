// The site's /img/ proxy (image host on plain http) against clients that do not
// read: they must not hold the connections to the image host, which every other
// visitor's image needs, and one address may have only so many images in flight.
// Clients come from several loopback addresses (127.0.0.0/8 is all loopback on
// Linux), as the per-address rule sees them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, request } from 'undici';
import { MAX_IMAGE_ANSWERS_PER_ADDRESS } from '../../../src/services/site/images/image-proxy.js';
import { STALLED_AFTER_MS } from '../../../src/services/site/images/proxy-holds.js';
import { closeTestSql, startTestSite, type TestServer } from '../../helpers/servers.js';

const MiB = 1024 * 1024;
/** Larger than what the kernel's socket buffers take of an answer nobody reads (about 4 MB on loopback). */
const LARGE_MD5 = 'a'.repeat(32);
const LARGE_BYTES = 8 * MiB;
const SMALL_MD5 = 'b'.repeat(32);
const SMALL = Buffer.from('small image bytes');
/** An image the stand-in answers only when told to. */
const HUNG_MD5 = 'c'.repeat(32);
/**
 * How long a visitor waits here. Streamed through, the small image never came
 * however long one waited (the site gave up on the image host after 5 s): an
 * answer at all is the regression check, so this bound is generous for a loaded
 * machine, not a speed target.
 */
const PROMPT_MS = 30_000;

let imageHost: Server;
let site: TestServer;
const seen = { large: 0, hung: 0 };
const hung: ServerResponse[] = [];

test.before(async () => {
  const large = Buffer.alloc(LARGE_BYTES, 7);
  imageHost = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url!.includes(LARGE_MD5)) {
      seen.large++;
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': large.length }).end(large);
    } else if (req.url!.includes(HUNG_MD5)) {
      seen.hung++;
      hung.push(res);
    } else {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': SMALL.length }).end(SMALL);
    }
  });
  await new Promise<void>((resolve) => imageHost.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(imageHost.address() as AddressInfo).port}`;
  site = await startTestSite({ IMAGE_HOST_URL: url, IMAGE_HOST_PUBLIC_URL: url });
});

test.after(async () => {
  for (const res of hung.splice(0)) res.destroy();
  await site?.close();
  imageHost?.closeAllConnections();
  await new Promise((resolve) => imageHost?.close(resolve));
  await closeTestSql();
});

/** Asks for `path` from `from` over a raw socket and never reads a byte of the answer. */
function neverRead(from: string, path: string): Socket {
  const { port } = new URL(site.url);
  const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: from });
  socket.pause();
  socket.on('error', () => {});
  socket.on('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: site.test\r\n\r\n`));
  return socket;
}

async function waitFor(what: string, condition: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** GET `path` on the site from the loopback address `from`, within PROMPT_MS. */
async function getFrom(from: string, path: string, signal = AbortSignal.timeout(PROMPT_MS)): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer; ms: number }> {
  const agent = new Agent({ localAddress: from });
  const started = Date.now();
  try {
    const answer = await request(site.url + path, { dispatcher: agent, signal });
    const body = Buffer.from(await answer.body.arrayBuffer());
    return { status: answer.statusCode, headers: answer.headers, body, ms: Date.now() - started };
  } finally {
    void agent.destroy();
  }
}

test('regression: sixteen clients that never read a large image no longer stall every other visitor\'s /img/ (the image host\'s connection is released)', async () => {
  // Sixteen is every connection the site keeps to the image host; four addresses,
  // each under the per-address cap, so that only the release is tested here.
  const sockets: Socket[] = [];
  try {
    seen.large = 0;
    for (let i = 0; i < 16; i++) sockets.push(neverRead(`127.0.0.${2 + (i % 4)}`, `/img/1/${LARGE_MD5}`));
    await waitFor('the image host to be asked sixteen times', () => seen.large === 16);
    // Streamed through, each of them held its connection for as long as it did not
    // read. Read whole, their bytes wait in the site, where a new answer may take
    // them once they have stalled for STALLED_AFTER_MS.
    await new Promise((resolve) => setTimeout(resolve, STALLED_AFTER_MS + 200));

    // While the sixteen's bytes fill the site's memory for answers, a new image is
    // 503 with Retry-After until they count as stalled (slower on a loaded
    // machine): a visitor that follows Retry-After gets it.
    let small = await getFrom('127.0.0.1', `/img/1/${SMALL_MD5}`);
    for (const until = Date.now() + PROMPT_MS; small.status === 503 && Date.now() < until; ) {
      assert.is(small.headers['retry-after'], '1');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      small = await getFrom('127.0.0.1', `/img/1/${SMALL_MD5}`);
    }
    assert.is(small.status, 200);
    assert.ok(small.body.equals(SMALL));

    // A visitor who reads gets the large image whole, though the sixteen hold theirs.
    const large = await getFrom('127.0.0.1', `/img/1/${LARGE_MD5}`, AbortSignal.timeout(2 * PROMPT_MS));
    assert.is(large.status, 200);
    assert.is(large.body.length, LARGE_BYTES);
    assert.is(large.body.readUInt8(LARGE_BYTES - 1), 7);
  } finally {
    for (const socket of sockets) socket.destroy();
  }
});

test(`regression: one address may hold only ${MAX_IMAGE_ANSWERS_PER_ADDRESS} /img/ answers at once (429 RATE_LIMITED with Retry-After); others are served`, async () => {
  const greedy = '127.0.0.6';
  const waiting = new AbortController();
  const held: Array<Promise<unknown>> = [];
  try {
    seen.hung = 0;
    for (let i = 0; i < MAX_IMAGE_ANSWERS_PER_ADDRESS; i++) held.push(getFrom(greedy, `/img/1/${HUNG_MD5}`, waiting.signal).catch(() => undefined));
    await waitFor('the image host to be asked for every held image', () => seen.hung === MAX_IMAGE_ANSWERS_PER_ADDRESS);

    const refused = await getFrom(greedy, `/img/1/${SMALL_MD5}`);
    assert.is(refused.status, 429);
    assert.is(refused.headers['retry-after'], '1');
    const body = JSON.parse(refused.body.toString()) as { success: boolean; code: string };
    assert.equal([body.success, body.code], [false, 'RATE_LIMITED']);

    const other = await getFrom('127.0.0.7', `/img/1/${SMALL_MD5}`);
    assert.equal([other.status, other.body.toString()], [200, SMALL.toString()]);
  } finally {
    for (const res of hung.splice(0)) res.writeHead(200, { 'content-type': 'image/png', 'content-length': SMALL.length }).end(SMALL);
    await Promise.race([Promise.all(held), new Promise((resolve) => setTimeout(resolve, PROMPT_MS))]);
    waiting.abort();
  }
  // Its answers done, the address is served again.
  const again = await getFrom(greedy, `/img/1/${SMALL_MD5}`);
  assert.is(again.status, 200);
});

test.run();
