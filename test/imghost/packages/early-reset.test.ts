// A download whose client resets early lets go of everything: the handler settles and
// the package's file descriptor (or the bucket's stream) is closed, whether the reset
// comes while the package is being opened or in the middle of the bytes.
import { randomBytes, createHash } from 'node:crypto';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../../src/lib/log.js';
import type { ImghostContext } from '../../../src/services/imghost/context.js';
import { openPackageStore, type PackageStore } from '../../../src/services/imghost/packages/package-store.js';
import { servePackage } from '../../../src/services/imghost/packages/serve-route.js';
import { tempDir } from '../../helpers/servers.js';

const bytes = randomBytes(8 * 1024 * 1024);
const sha256 = createHash('sha256').update(bytes).digest('hex');
const openFds = () => readdirSync('/proc/self/fd').length;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds, at most `ms`; answers whether it did. */
async function eventually(check: () => boolean, ms = 3000): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(20)) if (check()) return true;
  return check();
}

let store: PackageStore;
let server: Server;
let port = 0;
/** Set per test: what the handler serves from, and what it has done. */
let serving: PackageStore;
let settled = 0;
let serverClosed = 0;

const Reset = suite('package downloads cut early');

Reset.before(async () => {
  const dir = tempDir('lw-pkg-reset-');
  mkdirSync(join(dir, sha256.slice(0, 2)), { recursive: true });
  writeFileSync(join(dir, sha256.slice(0, 2), `${sha256}.zip`), bytes);
  store = await openPackageStore(dir, silentLogger);
  server = createServer((req, res) => {
    res.once('close', () => serverClosed++);
    const ctx = { req, res, method: req.method ?? 'GET', params: { sha256, file: 'demo.zip' }, log: silentLogger } as unknown as ImghostContext;
    void servePackage(serving)(ctx).then(() => settled++, () => settled++);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

Reset.after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await store.close();
});

/** A GET on a raw socket; resolves once it is connected and the request sent. */
function download() {
  const socket = connect(port, '127.0.0.1');
  let received = 0;
  socket.on('data', (chunk: Buffer) => (received += chunk.length));
  socket.on('error', () => {});
  socket.write(`GET /pkg/${sha256}/demo.zip HTTP/1.1\r\nHost: x\r\n\r\n`);
  return { socket, received: () => received };
}

/** The store, with open() held until the test lets it go. */
function heldOpen(inner: PackageStore) {
  let letGo!: () => void;
  const gate = new Promise<void>((resolve) => (letGo = resolve));
  let asked = 0;
  const held: PackageStore = {
    ...inner,
    open: async (hash) => {
      asked++;
      await gate;
      return inner.open(hash);
    },
  };
  return { held, letGo, asked: () => asked };
}

Reset('early reset during open: the download settles and closes its file (fd leak)', async () => {
  const before = openFds();
  const { held, letGo, asked } = heldOpen(store);
  serving = held;
  const [settledBefore, closedBefore] = [settled, serverClosed];
  const client = download();
  assert.ok(await eventually(() => asked() === 1), 'the handler is opening the package');
  client.socket.resetAndDestroy();
  assert.ok(await eventually(() => serverClosed === closedBefore + 1), 'the server saw the reset');
  letGo();
  assert.ok(await eventually(() => settled === settledBefore + 1), 'the handler settled');
  assert.ok(await eventually(() => openFds() <= before), `no descriptor left open (${openFds()} > ${before})`);
});

Reset('early reset during the bucket GET: the handler settles and destroys the stream (streamTo hang)', async () => {
  let body: Readable | null = null;
  let letGo!: () => void;
  const gate = new Promise<void>((resolve) => (letGo = resolve));
  let reading = 0;
  // As package-bucket-store.ts: no send(), read() answers the bucket's stream (held here).
  const bucketLike: PackageStore = {
    ...store,
    open: async (hash) => {
      const opened = await store.open(hash);
      if (!opened || opened === 'removed') return opened;
      opened.release();
      return {
        size: opened.size,
        etag: opened.etag,
        read: async () => {
          reading++;
          await gate;
          return (body = Readable.from([bytes]));
        },
        release: () => {},
      };
    },
  };
  serving = bucketLike;
  const [settledBefore, closedBefore] = [settled, serverClosed];
  const client = download();
  assert.ok(await eventually(() => reading === 1), 'the handler is fetching from the bucket');
  client.socket.resetAndDestroy();
  assert.ok(await eventually(() => serverClosed === closedBefore + 1), 'the server saw the reset');
  letGo();
  assert.ok(await eventually(() => settled === settledBefore + 1), 'the handler settled');
  assert.ok(body !== null && (body as Readable).destroyed, 'the bucket stream was destroyed');
});

Reset('a raw socket reset mid-download leaves no descriptor open', async () => {
  const before = openFds();
  serving = store;
  const [settledBefore] = [settled];
  const client = download();
  assert.ok(await eventually(() => client.received() > 256 * 1024), 'some bytes arrived');
  client.socket.resetAndDestroy();
  assert.ok(await eventually(() => settled === settledBefore + 1), 'the handler settled');
  assert.ok(await eventually(() => openFds() <= before), `no descriptor left open (${openFds()} > ${before})`);
});

Reset.run();
