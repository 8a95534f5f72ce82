// POST /apps/api/media/upload through both real services: the site relays the
// image to a real image host started here, and what it hands out is checked
// against what the image host then serves.
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { healthHandlers } from '../../../src/http/health.js';
import { createApp } from '../../../src/http/app.js';
import { createLogger, type Logger } from '../../../src/lib/log.js';
import { listen, type RunningServer } from '../../../src/http/server.js';
import { databaseIsReady } from '../../../src/db/pool.js';
import { createImghost } from '../../../src/services/imghost/app.js';
import { createSite } from '../../../src/services/site/app.js';
import { createGuards } from '../../../src/services/site/auth/guards.js';
import { authFeature } from '../../../src/services/site/auth/feature.js';
import type { SiteDeps, SiteLocals } from '../../../src/services/site/context.js';
import { renderSiteError } from '../../../src/services/site/errors.js';
import { imagesFeature } from '../../../src/services/site/images/feature.js';
import { createImageHostClient } from '../../../src/services/site/image-host/client.js';
import { DEFAULT_IMAGE_HOST_LIMITS, type ImageHostLimits } from '../../../src/services/site/image-host/limits.js';
import { listFiles, upload as uploadDirect, waitFor } from '../../fixtures/images/client.js';
import { makeAnimatedGif, makeJpeg, makePng, makeWebp } from '../../fixtures/images/generate.js';
import { testSessionCookie } from '../../helpers/fake-idp.js';
import {
  makePngUnder,
  multipartBody,
  postToSite,
  rawConnection,
  readAnswerHead,
  streamOf,
  UPLOAD_PATH,
  uploadThroughSite,
} from '../../helpers/media.js';
import { closeTestSql, startTestImghost, testConfig, testLogger, testSql, type TestServer } from '../../helpers/servers.js';
import { startFakeImageHost, startStalledListener, type FakeImageHost } from '../../helpers/fake-imghost.js';

const md5Of = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');
const MiB = 1024 * 1024;
/** Deliberately not the address the site reaches the image host at. */
const PUBLIC_BASE = 'https://images.example.test/cdn';

let userCount = 0;
/** A session of a fresh user: the upload limit (30 a minute) is per user. */
const freshSession = () => testSessionCookie(testSql(), `media-user-${++userCount}`);

interface SiteUnderTest {
  url: string;
  /** Requests whose handler has not finished (a stuck relay would stay here). */
  inFlight(): number;
  server: RunningServer;
  close(): Promise<void>;
}

/** Serves a site handler on a random port, counting the requests still being handled. */
async function serve(service: { handler: (req: any, res: any) => Promise<void>; close(): Promise<void> }): Promise<SiteUnderTest> {
  let inFlight = 0;
  const server = await listen(
    (req, res) => {
      inFlight++;
      return service.handler(req, res).finally(() => inFlight--);
    },
    '127.0.0.1',
    0,
  );
  return {
    url: server.url,
    inFlight: () => inFlight,
    server,
    close: async () => {
      await server.close(1000);
      await service.close();
    },
  };
}

/** The whole site, as production builds it. */
function startSite(overrides: Record<string, string | undefined>, log: Logger = testLogger()): Promise<SiteUnderTest> {
  const config = testConfig(overrides);
  return serve(createSite({ config, sql: testSql(), log }));
}

/**
 * Sessions, the cross-site check and the media route, with options the whole site
 * cannot take (short image host timeouts), so no test waits 15 s.
 */
function startMediaOnly(overrides: Record<string, string | undefined>, options: { imageHostLimits?: Partial<ImageHostLimits> }): Promise<SiteUnderTest> {
  const deps: SiteDeps = { config: testConfig(overrides), sql: testSql(), log: testLogger() };
  const guards = createGuards(deps);
  const auth = authFeature(deps, guards);
  const imageHost = createImageHostClient(deps.config, { ...DEFAULT_IMAGE_HOST_LIMITS, ...options.imageHostLimits });
  const media = imagesFeature(deps, guards, imageHost);
  const handler = createApp<SiteLocals>({
    name: 'site',
    log: deps.log,
    trustProxy: false,
    createLocals: () => ({ user: null, sessionId: null }),
    renderError: renderSiteError,
    middleware: auth.middleware ?? [],
    routes: [{ method: 'GET', path: '/healthz', handler: healthHandlers(() => databaseIsReady(deps.sql)).live },
      { method: 'GET', path: '/readyz', handler: healthHandlers(() => databaseIsReady(deps.sql)).ready }, ...media.routes],
  });
  return serve({
    handler,
    close: async () => {
      await media.close?.();
      await imageHost.close();
      await auth.close?.();
    },
  });
}

/** An image host's data folder holds tens of MiB of test images: removed once it has stopped. */
const removeData = (server: { config: { dataDir: string } }) => rm(server.config.dataDir, { recursive: true, force: true });

/** The image host's files (its temp folder included), to show an upload left nothing. */
const imageFiles = (imghost: { config: { imagesDir: string } }) => listFiles(imghost.config.imagesDir);

async function sameFiles(imghost: { config: { imagesDir: string } }, before: string[]): Promise<boolean> {
  return waitFor(async () => JSON.stringify(await imageFiles(imghost)) === JSON.stringify(before), 5000);
}

/** The path of an absolute URL handed out under PUBLIC_BASE. */
function pathUnderPublicBase(url: unknown): string {
  assert.type(url, 'string');
  assert.ok((url as string).startsWith(PUBLIC_BASE + '/'), `${String(url)} is under ${PUBLIC_BASE}`);
  return (url as string).slice(PUBLIC_BASE.length);
}

// ── Through both real services ─────────────────────────────────────────────────

const Relay = suite('uploads through the site');
let imghost: TestServer;
let site: SiteUnderTest;

Relay.before(async () => {
  imghost = await startTestImghost();
  site = await startSite({ IMAGE_HOST_URL: imghost.url, IMAGE_HOST_PUBLIC_URL: PUBLIC_BASE + '/' });
});
Relay.after(async () => {
  await site.close();
  await imghost.close();
  await removeData(imghost);
});

const accepted = [
  { what: 'a PNG', make: () => makePng(101), name: 'icon.png', mime: 'image/png', ext: 'png', animated: false },
  { what: 'a JPEG', make: () => makeJpeg(102), name: 'shot.jpg', mime: 'image/jpeg', ext: 'jpg', animated: false },
  { what: 'a WebP', make: () => makeWebp(103), name: 'pic.webp', mime: 'image/webp', ext: 'webp', animated: false },
  { what: 'an animated GIF (its WebP animated too)', make: () => makeAnimatedGif(104, 4), name: 'spin.gif', mime: 'image/gif', ext: 'gif', animated: true },
  { what: 'a PNG named .txt (by content, filename gets .png)', make: () => makePng(105), name: 'notes.txt', mime: 'image/png', ext: 'png', animated: false },
];

for (const row of accepted) {
  Relay(`${row.what} comes back with absolute URLs the image host serves byte for byte`, async () => {
    const bytes = await row.make();
    const md5 = md5Of(bytes);
    const answer = await uploadThroughSite(site.url, await freshSession(), bytes, row.name);
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    assert.is(answer.body.success, true);
    const data = answer.body.data;
    assert.equal(Object.keys(data).sort(), ['filename', 'md5', 'timestamp', 'url', 'webpUrl']);
    assert.is(data.md5, md5);
    assert.ok(Number.isInteger(data.timestamp));
    assert.is(data.filename, `${md5}.${row.ext}`);
    const path = pathUnderPublicBase(data.url);
    assert.is(path, `/img/${data.timestamp}/${md5}`);
    assert.is(pathUnderPublicBase(data.webpUrl), `${path}.webp`);

    const original = await fetch(imghost.url + path);
    assert.is(original.status, 200);
    assert.is(original.headers.get('content-type'), row.mime);
    assert.ok(Buffer.from(await original.arrayBuffer()).equals(bytes), 'the original is served byte for byte');

    const webp = await fetch(imghost.url + pathUnderPublicBase(data.webpUrl));
    assert.is(webp.status, 200);
    assert.is(webp.headers.get('content-type'), 'image/webp');
    const meta = await sharp(Buffer.from(await webp.arrayBuffer()), { animated: true }).metadata();
    assert.is(meta.format, 'webp');
    assert.is((meta.pages ?? 1) > 1, row.animated, `pages: ${meta.pages}`);
  });
}

for (const chunked of [false, true]) {
  Relay(`an image of just under 8 MiB streams through (${chunked ? 'chunked' : 'with Content-Length'})`, async () => {
    const bytes = makePngUnder(8 * MiB);
    assert.ok(bytes.length > 8 * MiB - 64 * 1024 && bytes.length <= 8 * MiB, `size ${bytes.length}`);
    const { body, contentType } = multipartBody([{ name: 'image', filename: 'big.png', contentType: 'image/png', data: bytes }]);
    const answer = await postToSite(site.url, await freshSession(), chunked ? streamOf(body) : body, { 'content-type': contentType });
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    const served = await fetch(imghost.url + pathUnderPublicBase(answer.body.data.url));
    assert.ok(Buffer.from(await served.arrayBuffer()).equals(bytes));
  });
}

const boundary = [
  { what: 'exactly 8 MiB is accepted', size: 8 * MiB, status: 200 },
  { what: '8 MiB and one byte is 413', size: 8 * MiB + 1, status: 413 },
];
for (const row of boundary) {
  Relay(`regression: the limit is counted to the byte: ${row.what}`, async () => {
    const before = await imageFiles(imghost);
    // A PNG padded with zeros after its end: decoders ignore what follows IEND.
    const png = await makePng(125 + row.size % 2);
    const bytes = Buffer.concat([png, Buffer.alloc(row.size - png.length)]);
    const { body, contentType } = multipartBody([{ name: 'image', filename: 'edge.png', contentType: 'image/png', data: bytes }]);
    const answer = await postToSite(site.url, await freshSession(), body, { 'content-type': contentType });
    assert.is(answer.status, row.status, JSON.stringify(answer.body));
    if (row.status === 200) assert.is(answer.body.data.md5, md5Of(bytes));
    else assert.ok(await sameFiles(imghost, before), 'the image host kept nothing');
  });
}

Relay('other parts around the image are ignored, and only the first image part counts', async () => {
  const first = await makePng(110);
  const second = await makePng(111);
  const { body, contentType } = multipartBody([
    { name: 'title', data: 'my icon' },
    { name: 'thumbnail', filename: 't.png', contentType: 'image/png', data: second },
    { name: 'image', filename: 'a.png', contentType: 'image/png', data: first },
    { name: 'image', filename: 'b.png', contentType: 'image/png', data: second },
    { name: 'after', data: 'x' },
  ]);
  const answer = await postToSite(site.url, await freshSession(), body, { 'content-type': contentType });
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  assert.is(answer.body.data.md5, md5Of(first));
});

const refused = [
  {
    what: 'a form without an image part',
    form: () => multipartBody([{ name: 'file', filename: 'a.png', contentType: 'image/png', data: Buffer.from('x') }]),
    status: 400,
    code: 'VALIDATION_FAILED',
  },
  { what: 'an image part that is a plain field', form: () => multipartBody([{ name: 'image', data: 'hello' }]), status: 400, code: 'VALIDATION_FAILED' },
  {
    what: "a form's empty file input",
    form: () => multipartBody([{ name: 'image', filename: '', contentType: 'application/octet-stream', data: '' }]),
    status: 400,
    code: 'VALIDATION_FAILED',
  },
  {
    what: 'an empty file',
    form: () => multipartBody([{ name: 'image', filename: 'a.png', contentType: 'image/png', data: '' }]),
    status: 400,
    code: 'VALIDATION_FAILED',
  },
  {
    what: 'a text file named a.png sent as image/png',
    form: () => multipartBody([{ name: 'image', filename: 'a.png', contentType: 'image/png', data: 'just some text, not a PNG at all\n'.repeat(100) }]),
    status: 400,
    code: 'VALIDATION_FAILED',
  },
  {
    what: 'an SVG (not one of the four types)',
    form: () => multipartBody([{ name: 'image', filename: 'a.svg', contentType: 'image/svg+xml', data: '<svg xmlns="http://www.w3.org/2000/svg"/>' }]),
    status: 400,
    code: 'VALIDATION_FAILED',
  },
  { what: 'a JSON body', form: () => ({ body: Buffer.from('{"image":"x"}'), contentType: 'application/json' }), status: 400, code: 'VALIDATION_FAILED' },
  {
    what: 'a truncated form',
    form: () => {
      const { body, contentType } = multipartBody([{ name: 'title', data: 'x'.repeat(100) }]);
      return { body: body.subarray(0, 60), contentType };
    },
    status: 400,
    code: 'BAD_REQUEST',
  },
];

for (const row of refused) {
  Relay(`${row.what}: ${row.status} ${row.code}, nothing reaches the image host`, async () => {
    const before = await imageFiles(imghost);
    const { body, contentType } = row.form();
    const answer = await postToSite(site.url, await freshSession(), body, { 'content-type': contentType });
    assert.is(answer.status, row.status, JSON.stringify(answer.body));
    assert.is(answer.body.success, false);
    assert.is(answer.body.code, row.code);
    if (row.code === 'VALIDATION_FAILED') assert.is(answer.body.field, 'image');
    assert.equal(await imageFiles(imghost), before);
  });
}

const badTails = [
  {
    what: 'a form cut off before its closing delimiter',
    tail: (whole: Buffer) => whole.subarray(0, whole.lastIndexOf('--test-')),
    status: 400,
  },
  {
    what: 'a form with too many parts after its image part',
    tail: (whole: Buffer) => {
      const { body } = multipartBody(Array.from({ length: 30 }, (_, i) => ({ name: `f${i}`, data: 'x' })), 'test-tail');
      return Buffer.concat([whole.subarray(0, whole.lastIndexOf('--test-tail--')), body]);
    },
    status: 413,
  },
];
for (const row of badTails) {
  Relay(`${row.what}: ${row.status}, and the image host keeps nothing of the image`, async () => {
    const before = await imageFiles(imghost);
    const { body, contentType } = multipartBody([{ name: 'image', filename: 'a.png', contentType: 'image/png', data: await makePng(124) }], 'test-tail');
    const answer = await postToSite(site.url, await freshSession(), row.tail(body), { 'content-type': contentType });
    assert.is(answer.status, row.status, JSON.stringify(answer.body));
    assert.ok(await sameFiles(imghost, before), 'the image host kept nothing');
  });
}

const tooLarge = [
  { what: 'with Content-Length', chunked: false },
  { what: 'chunked', chunked: true },
];
for (const row of tooLarge) {
  Relay(`9 MiB ${row.what}: 413 PAYLOAD_TOO_LARGE and nothing new under the image host's data folder`, async () => {
    const before = await imageFiles(imghost);
    const bytes = Buffer.concat([await makePng(120), Buffer.alloc(9 * MiB)]);
    const { body, contentType } = multipartBody([{ name: 'image', filename: 'huge.png', contentType: 'image/png', data: bytes }]);
    const answer = await postToSite(site.url, await freshSession(), row.chunked ? streamOf(body) : body, { 'content-type': contentType });
    assert.is(answer.status, 413);
    assert.is(answer.body.code, 'PAYLOAD_TOO_LARGE');
    // Declared: refused unread, so nothing was ever sent on. Chunked: the relay
    // was abandoned at 8 MiB, and the image host drops its temp file.
    if (!row.chunked) assert.equal(await imageFiles(imghost), before);
    assert.ok(await sameFiles(imghost, before), 'the image host kept nothing');
    assert.ok(await waitFor(async () => site.inFlight() === 0), 'no stuck request');
  });
}

Relay('a declared Content-Length too large for any form is refused before the body is sent', async () => {
  const socket = await rawConnection(site.url);
  try {
    socket.write(
      `POST ${UPLOAD_PATH} HTTP/1.1\r\nHost: site.test\r\nCookie: ${await freshSession()}\r\n` +
        `Content-Type: multipart/form-data; boundary=x\r\nContent-Length: ${64 * MiB}\r\n\r\n`,
    );
    const head = await readAnswerHead(socket);
    assert.is(head.status, 413);
  } finally {
    socket.destroy();
  }
});

Relay('not logged in: 401 UNAUTHORIZED before any body byte is sent', async () => {
  const socket = await rawConnection(site.url);
  try {
    // Headers only: the answer must come without the body ever being sent.
    socket.write(`POST ${UPLOAD_PATH} HTTP/1.1\r\nHost: site.test\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 100000\r\n\r\n`);
    const head = await readAnswerHead(socket);
    assert.is(head.status, 401);
    assert.match(head.text, /"code":"UNAUTHORIZED"/);
  } finally {
    socket.destroy();
  }
});

Relay('a cookie of no live session is not a login: 401', async () => {
  const answer = await uploadThroughSite(site.url, 'sid=' + 'A'.repeat(43), await makePng(121), 'a.png');
  assert.is(answer.status, 401);
  assert.is(answer.body.code, 'UNAUTHORIZED');
});

Relay('a cross-site upload with the session cookie is refused: 403 FORBIDDEN', async () => {
  const cookie = await freshSession();
  const bytes = await makePng(122);
  const foreign = await uploadThroughSite(site.url, cookie, bytes, 'a.png', { origin: 'https://evil.example' });
  assert.is(foreign.status, 403);
  assert.is(foreign.body.code, 'FORBIDDEN');
  const own = await uploadThroughSite(site.url, cookie, bytes, 'a.png', { origin: 'http://site.test' });
  assert.is(own.status, 200);
});

Relay('GET on the upload route: 405 with Allow', async () => {
  const res = await fetch(site.url + UPLOAD_PATH);
  assert.is(res.status, 405);
  assert.is(res.headers.get('allow'), 'POST');
});

Relay('an upload the client aborts half-way leaves nothing on the image host and no stuck request', async () => {
  const before = await imageFiles(imghost);
  const bytes = makePngUnder(4 * MiB);
  const { body, contentType } = multipartBody([{ name: 'image', filename: 'cut.png', contentType: 'image/png', data: bytes }]);
  const socket = await rawConnection(site.url);
  socket.on('error', () => {});
  socket.write(`POST ${UPLOAD_PATH} HTTP/1.1\r\nHost: site.test\r\nCookie: ${await freshSession()}\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`);
  socket.write(body.subarray(0, body.length >> 1));
  // The relay is under way once the image host has started its temp file.
  assert.ok(await waitFor(async () => (await imageFiles(imghost)).some((file) => file.startsWith('.tmp')), 10_000), 'the relay started');
  socket.destroy();
  assert.ok(await sameFiles(imghost, before), 'the image host kept nothing');
  assert.ok(await waitFor(async () => site.inFlight() === 0, 5000), 'the site finished the request');
  const next = await uploadThroughSite(site.url, await freshSession(), await makePng(123), 'next.png');
  assert.is(next.status, 200);
});

Relay('twenty uploads at once all succeed', async () => {
  const images = await Promise.all(Array.from({ length: 20 }, (_, i) => makePng(200 + i)));
  const cookies = await Promise.all(images.map(() => freshSession()));
  const answers = await Promise.all(images.map((bytes, i) => uploadThroughSite(site.url, cookies[i], bytes, `p${i}.png`)));
  assert.equal(answers.map((answer) => answer.status), images.map(() => 200));
  assert.equal(answers.map((answer) => answer.body.data.md5), images.map(md5Of));
});

// ── The image host failing ─────────────────────────────────────────────────────

const Failing = suite('image host failures');
const SHORT_TIMEOUT_MS = 300;
let front: FakeImageHost;
let realHost: TestServer;
let quick: SiteUnderTest;

Failing.before(async () => {
  realHost = await startTestImghost();
  front = await startFakeImageHost(realHost.url);
  quick = await startMediaOnly(
    { IMAGE_HOST_URL: front.url, IMAGE_HOST_PUBLIC_URL: PUBLIC_BASE },
    { imageHostLimits: { connectTimeoutMs: SHORT_TIMEOUT_MS, headersTimeoutMs: SHORT_TIMEOUT_MS, bodyTimeoutMs: SHORT_TIMEOUT_MS } },
  );
});
Failing.before.each(() => {
  front.mode = 'relay';
});
Failing.after(async () => {
  await quick.close();
  await front.close();
  await realHost.close();
  await removeData(realHost);
});

async function expectUpstreamFailed(siteUrl: string, what: string, bytes?: Buffer): Promise<string> {
  const answer = await uploadThroughSite(siteUrl, await freshSession(), bytes ?? (await makePng(300 + userCount)), 'a.png');
  assert.is(answer.status, 502, `${what}: ${JSON.stringify(answer.body)}`);
  assert.is(answer.body.success, false);
  assert.is(answer.body.code, 'UPSTREAM_FAILED');
  assert.type(answer.body.error, 'string');
  assert.ok(answer.body.error.length > 10, `a useful error: ${answer.body.error}`);
  return answer.body.error;
}

async function expectRecovered(siteUrl: string): Promise<void> {
  assert.is((await fetch(siteUrl + '/healthz')).status, 200);
  const bytes = await makePng(400 + userCount);
  const answer = await uploadThroughSite(siteUrl, await freshSession(), bytes, 'b.png');
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  assert.is(answer.body.data.md5, md5Of(bytes));
}

const failures = [
  { what: 'answering 500', mode: 'status-500', error: /500/ },
  { what: 'answering 503 with Retry-After', mode: 'status-503', error: /503/ },
  { what: 'refusing the image with its own 400', mode: 'image-refused', error: /refused the image: File is not a valid image/ },
  { what: 'answering 200 with HTML', mode: 'not-json', error: /not JSON/ },
  { what: 'answering JSON of the wrong shape', mode: 'wrong-shape', error: /unexpected answer/ },
  { what: 'answering success false with 200', mode: 'success-false', error: /unexpected answer/ },
  { what: 'answering a URL on another host', mode: 'foreign-url', error: /data\.url/ },
  { what: 'answering a huge body', mode: 'huge-answer', error: /too large/ },
  { what: 'hanging before its answer, past the timeout', mode: 'hang-headers', error: /in time/ },
  { what: 'hanging in the middle of its answer, past the timeout', mode: 'hang-body', error: /middle of its answer/ },
  { what: 'closing the connection without an answer', mode: 'hang-up', error: /closed the connection/ },
  { what: 'not reading the upload at all', mode: 'never-read', error: /in time/, big: true },
] as const;

for (const row of failures) {
  Failing(`the image host ${row.what}: 502 UPSTREAM_FAILED, then the next upload succeeds`, async () => {
    front.mode = row.mode;
    const started = Date.now();
    // A big image cannot fit in the sockets' buffers: the relay has to wait on the image host.
    const error = await expectUpstreamFailed(quick.url, row.what, 'big' in row ? makePngUnder(4 * MiB) : undefined);
    assert.match(error, row.error);
    assert.ok(Date.now() - started < 10_000, 'gave up at the timeout instead of waiting forever');
    assert.ok(await waitFor(async () => quick.inFlight() === 0), 'no stuck request');
    front.mode = 'relay';
    await expectRecovered(quick.url);
  });
}

Failing('the image host stopped: 502 UPSTREAM_FAILED, and uploads work again once it is back', async () => {
  const config = testConfig();
  const service = await createImghost({ config, log: testLogger() });
  let server = await listen(service.handler, '127.0.0.1', 0);
  const port = server.port;
  const local = await startMediaOnly({ IMAGE_HOST_URL: server.url, IMAGE_HOST_PUBLIC_URL: PUBLIC_BASE }, {});
  try {
    await expectRecovered(local.url);
    await server.close(1000);
    const error = await expectUpstreamFailed(local.url, 'stopped');
    assert.match(error, /could not be reached|closed the connection/);
    server = await listen(service.handler, '127.0.0.1', port);
    await expectRecovered(local.url);
  } finally {
    await local.close();
    await server.close(1000);
    await service.close();
    await removeData({ config });
  }
});

Failing('an image host that does not accept the connection: 502 at the connect timeout', async () => {
  const stalled = await startStalledListener();
  const local = await startMediaOnly({ IMAGE_HOST_URL: stalled.url, IMAGE_HOST_PUBLIC_URL: PUBLIC_BASE }, { imageHostLimits: { connectTimeoutMs: SHORT_TIMEOUT_MS } });
  try {
    const started = Date.now();
    const error = await expectUpstreamFailed(local.url, 'connect');
    assert.match(error, /connection in time/);
    assert.ok(Date.now() - started < 10_000, 'gave up at the timeout instead of waiting forever');
  } finally {
    await local.close();
    stalled.close();
  }
});

// ── The upload token ───────────────────────────────────────────────────────────

const Token = suite('IMGHOST_UPLOAD_TOKEN');
const TOKEN = 'tok-' + createHash('sha256').update('media test token').digest('hex').slice(0, 40);
let guarded: TestServer;

Token.before(async () => {
  guarded = await startTestImghost({ IMGHOST_UPLOAD_TOKEN: TOKEN });
});
Token.after(async () => {
  await guarded.close();
  await removeData(guarded);
});

Token('direct uploads without the token are refused; uploads through the site work', async () => {
  const direct = await uploadDirect(guarded.url, await makePng(500), 'a.png');
  assert.is(direct.status, 401);
  const withToken = await startSite({ IMAGE_HOST_URL: guarded.url, IMAGE_HOST_PUBLIC_URL: PUBLIC_BASE, IMGHOST_UPLOAD_TOKEN: TOKEN });
  try {
    const bytes = await makePng(501);
    const answer = await uploadThroughSite(withToken.url, await freshSession(), bytes, 'a.png');
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    assert.is(answer.body.data.md5, md5Of(bytes));
  } finally {
    await withToken.close();
  }
});

Token('a token the image host refuses: 502, and the token is in no answer and no log line', async () => {
  const wrong = 'wrong-' + TOKEN;
  const lines: string[] = [];
  const log = createLogger({}, { level: 'debug', write: (line) => lines.push(line) });
  const mismatched = await startSite({ IMAGE_HOST_URL: guarded.url, IMAGE_HOST_PUBLIC_URL: PUBLIC_BASE, IMGHOST_UPLOAD_TOKEN: wrong }, log);
  try {
    const answer = await uploadThroughSite(mismatched.url, await freshSession(), await makePng(502), 'a.png');
    assert.is(answer.status, 502);
    assert.is(answer.body.code, 'UPSTREAM_FAILED');
    assert.match(answer.body.error, /token/);
    assert.ok(await waitFor(async () => lines.some((line) => line.includes('"status":502'))), 'the request was logged');
    for (const text of [JSON.stringify(answer.body), ...lines]) {
      assert.not.ok(text.includes(TOKEN), `token leaked into: ${text}`);
    }
  } finally {
    await mismatched.close();
  }
});

// ── The rate limit ─────────────────────────────────────────────────────────────

const Limit = suite('upload rate limit');

Limit('30 uploads a minute per user, shared by two site processes; then 429 RATE_LIMITED with Retry-After', async () => {
  const host = await startTestImghost();
  const one = await startSite({ IMAGE_HOST_URL: host.url });
  const two = await startSite({ IMAGE_HOST_URL: host.url });
  try {
    const cookie = await freshSession();
    // Refused uploads count too: each one still costs a relay's worth of work to judge.
    const { body, contentType } = multipartBody([{ name: 'image', filename: 'a.png', contentType: 'image/png', data: 'not an image' }]);
    for (let i = 0; i < 30; i++) {
      const answer = await postToSite(i % 2 === 0 ? one.url : two.url, cookie, body, { 'content-type': contentType });
      assert.is(answer.status, 400, `upload ${i + 1}`);
    }
    for (const url of [one.url, two.url]) {
      const answer = await uploadThroughSite(url, cookie, await makePng(600), 'a.png');
      assert.is(answer.status, 429);
      assert.is(answer.body.code, 'RATE_LIMITED');
      const retryAfter = Number(answer.headers.get('retry-after'));
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
    }
    const other = await uploadThroughSite(one.url, await freshSession(), await makePng(601), 'a.png');
    assert.is(other.status, 200, 'another user is not limited');
  } finally {
    await one.close();
    await two.close();
    await host.close();
    await removeData(host);
    await closeTestSql();
  }
});

Relay.run();
Failing.run();
Token.run();
Limit.run();
