import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestImghost, type TestServer } from '../../helpers/servers.js';
import { manualClock } from '../../helpers/time.js';
import { blobOf, listFiles, rawRequest, upload, waitFor } from '../../fixtures/images/client.js';
import { makeGif, makeJpeg, makePng, makePngBomb, makeWebp } from '../../fixtures/images/generate.js';

const md5Of = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');
const TOKEN = 'upload-secret-token';
const SMALL_MAX_BYTES = 4000;

let open: TestServer;
let guarded: TestServer;
let small: TestServer;
/** `open`'s clock: its answers' timestamps move when a test moves it. */
const clock = manualClock();

const Upload = suite('POST /api/upload');

Upload.before(async () => {
  open = await startTestImghost({}, clock.now);
  guarded = await startTestImghost({ IMGHOST_UPLOAD_TOKEN: TOKEN });
  small = await startTestImghost({ IMGHOST_MAX_BYTES: String(SMALL_MAX_BYTES) });
});

Upload.after(async () => {
  await open?.close();
  await guarded?.close();
  await small?.close();
});

/** Files under the images folder other than ones a test expects (temp folder included). */
const filesOf = (server: TestServer) => listFiles(server.config.imagesDir);

const accepted = [
  { what: 'JPEG named .jpg', make: () => makeJpeg(1), name: 'photo.jpg', mime: 'image/jpeg', ext: 'jpg', stored: 'jpg' },
  { what: 'PNG named .png', make: () => makePng(2), name: 'shot.png', mime: 'image/png', ext: 'png', stored: 'png' },
  { what: 'GIF named .gif', make: () => makeGif(3), name: 'anim.gif', mime: 'image/gif', ext: 'gif', stored: 'gif' },
  { what: 'WebP named .webp', make: () => makeWebp(4), name: 'pic.webp', mime: 'image/webp', ext: 'webp', stored: 'webp' },
  { what: 'upper-case .JPEG keeps its name, lower-cased', make: () => makeJpeg(5), name: 'IMG_1.JPEG', mime: 'image/jpeg', ext: 'jpeg', stored: 'jpg' },
  { what: 'GIF named .png is stored and served as GIF, filename keeps .png', make: () => makeGif(6), name: 'liar.png', mime: 'image/gif', ext: 'png', stored: 'gif' },
  { what: 'PNG without extension gets .png', make: () => makePng(7), name: 'noext', mime: 'image/png', ext: 'png', stored: 'png' },
  { what: 'JPEG named .txt gets .jpg', make: () => makeJpeg(8), name: 'notes.txt', mime: 'image/jpeg', ext: 'jpg', stored: 'jpg' },
  { what: 'path in the name is ignored', make: () => makePng(9), name: '../../etc/x.png', mime: 'image/png', ext: 'png', stored: 'png' },
];

for (const row of accepted) {
  Upload(`accepts ${row.what}`, async () => {
    const bytes = await row.make();
    const md5 = md5Of(bytes);
    const before = clock.now();
    const answer = await upload(open.url, bytes, row.name);
    assert.is(answer.status, 200);
    assert.is(answer.body.success, true);
    assert.is(answer.body.message, 'Upload successful');
    const data = answer.body.data;
    assert.is(data.md5, md5);
    assert.ok(Number.isInteger(data.timestamp) && data.timestamp >= before && data.timestamp <= clock.now());
    assert.is(data.url, `/img/${data.timestamp}/${md5}`);
    assert.is(data.webpUrl, `/img/${data.timestamp}/${md5}.webp`);
    assert.is(data.filename, `${md5}.${row.ext}`);

    const served = await fetch(open.url + data.url);
    assert.is(served.status, 200);
    assert.is(served.headers.get('content-type'), row.mime);
    assert.ok(Buffer.from(await served.arrayBuffer()).equals(bytes));
    assert.ok((await filesOf(open)).includes(join(md5.slice(0, 2), `${md5}.${row.stored}`)));
  });
}

Upload('dedupe: the same bytes uploaded twice are stored once and both URLs work', async () => {
  const bytes = await makePng(20);
  const md5 = md5Of(bytes);
  const first = await upload(open.url, bytes, 'a.png');
  clock.advance(1); // a later timestamp
  const second = await upload(open.url, bytes, 'b.png');
  assert.is(first.status, 200);
  assert.is(second.status, 200);
  assert.is(second.body.data.md5, first.body.data.md5);
  assert.is.not(second.body.data.url, first.body.data.url);
  const stored = (await filesOf(open)).filter((name) => name.includes(md5));
  assert.equal(stored, [join(md5.slice(0, 2), `${md5}.png`)]);
  for (const url of [first.body.data.url, second.body.data.url]) {
    const res = await fetch(open.url + url);
    assert.is(res.status, 200);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes));
  }
});

Upload('other fields and files around the image are drained and ignored', async () => {
  const bytes = await makeJpeg(21);
  const form = new FormData();
  form.append('title', 'hello');
  form.append('attachment', blobOf(Buffer.from('not an image at all')), 'notes.txt');
  form.append('image', blobOf(bytes), 'p.jpg');
  form.append('after', 'x'.repeat(1000));
  const res = await fetch(open.url + '/api/upload', { method: 'POST', body: form });
  assert.is(res.status, 200);
  assert.is((await res.json()).data.md5, md5Of(bytes));
});

const truncatedJpeg = async () => {
  const whole = await makeJpeg(30, 256, 256);
  return whole.subarray(0, whole.length >> 1);
};

const refused = [
  { what: 'SVG', make: async () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), name: 'x.svg' },
  { what: 'text named .jpg', make: async () => Buffer.from('just some text, long enough to sniff'), name: 'x.jpg' },
  { what: 'truncated JPEG (good header, half the data)', make: truncatedJpeg, name: 'half.jpg' },
  { what: 'JPEG signature then garbage', make: async () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(600, 7)]), name: 'x.jpg' },
  { what: 'PNG signature only', make: async () => Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), name: 'x.png' },
  { what: 'two bytes', make: async () => Buffer.from([0xff, 0xd8]), name: 'x.jpg' },
  { what: 'empty file with a name', make: async () => Buffer.alloc(0), name: 'empty.png' },
  { what: 'BMP', make: async () => Buffer.concat([Buffer.from('BM'), Buffer.alloc(100)]), name: 'x.bmp' },
];

for (const row of refused) {
  Upload(`refuses ${row.what} with 400 and leaves nothing on disk`, async () => {
    const before = await filesOf(open);
    const answer = await upload(open.url, await row.make(), row.name);
    assert.is(answer.status, 400);
    assert.is(answer.body.success, false);
    assert.type(answer.body.message, 'string');
    assert.equal(await filesOf(open), before);
  });
}

Upload('a 30000×30000 PNG bomb is refused with 400 without memory growth', async () => {
  const bomb = makePngBomb();
  const before = await filesOf(open);
  const rss = process.memoryUsage().rss;
  const answer = await upload(open.url, bomb, 'bomb.png');
  const growth = process.memoryUsage().rss - rss;
  assert.is(answer.status, 400);
  assert.is(answer.body.success, false);
  assert.ok(growth < 100 * 1024 * 1024, `RSS grew by ${Math.round(growth / 1048576)} MiB`);
  assert.equal(await filesOf(open), before);
});

const noFile = [
  { what: 'only a text field', form: () => withField('title', 'x') },
  { what: 'a file under another name', form: () => withFile('picture', Buffer.from('GIF89a'), 'a.gif') },
  { what: 'an empty file input (filename "")', form: () => withFile('image', Buffer.alloc(0), '') },
];

function withField(name: string, value: string): FormData {
  const form = new FormData();
  form.append(name, value);
  return form;
}

function withFile(name: string, bytes: Buffer, filename: string): FormData {
  const form = new FormData();
  form.append(name, blobOf(bytes), filename);
  return form;
}

for (const row of noFile) {
  Upload(`no image part (${row.what}) gives 400 "No file uploaded"`, async () => {
    const res = await fetch(open.url + '/api/upload', { method: 'POST', body: row.form() });
    assert.is(res.status, 400);
    const body = await res.json();
    assert.is(body.success, false);
    assert.is(body.message, 'No file uploaded');
  });
}

// As documented: when no file is sent, the message is "No file uploaded"; a request
// with no form at all sent no file either (what the old multer service answered).
const notAForm = [
  { what: 'no body and no Content-Type', init: { method: 'POST' } },
  { what: 'a JSON body', init: { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"image":"x"}' } },
  { what: 'a urlencoded body', init: { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'image=x' } },
];
for (const row of notAForm) {
  Upload(`a request that is not a form (${row.what}) gives 400 "No file uploaded"`, async () => {
    const res = await fetch(open.url + '/api/upload', row.init);
    assert.is(res.status, 400);
    const body = await res.json();
    assert.is(body.success, false);
    assert.is(body.message, 'No file uploaded');
  });
}

Upload('a malformed multipart body gives 400', async () => {
  const res = await fetch(open.url + '/api/upload', {
    method: 'POST',
    headers: { 'Content-Type': 'multipart/form-data; boundary=XyZ' },
    body: '--XyZ\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\n\r\nno closing delimiter',
  });
  assert.is(res.status, 400);
  assert.is((await res.json()).success, false);
});

const tokens: Array<{ what: string; headers: Record<string, string>; status: number }> = [
  { what: 'no Authorization header', headers: {}, status: 401 },
  { what: 'a wrong token', headers: { Authorization: 'Bearer nope' }, status: 401 },
  { what: 'the token without "Bearer"', headers: { Authorization: TOKEN }, status: 401 },
  { what: 'a token that only starts right', headers: { Authorization: `Bearer ${TOKEN}x` }, status: 401 },
  { what: 'the right token', headers: { Authorization: `Bearer ${TOKEN}` }, status: 200 },
  { what: 'the right token, lower-case scheme', headers: { Authorization: `bearer ${TOKEN}` }, status: 200 },
];

for (const row of tokens) {
  Upload(`IMGHOST_UPLOAD_TOKEN set: ${row.what} gives ${row.status}`, async () => {
    const form = new FormData();
    form.append('image', new Blob([await makePng(40)]), 'a.png');
    const before = Date.now();
    const res = await fetch(guarded.url + '/api/upload', { method: 'POST', body: form, headers: row.headers });
    assert.is(res.status, row.status);
    const body = await res.json();
    assert.is(body.success, row.status === 200);
    // A host given no clock stamps its answers with the wall clock.
    if (row.status === 200) assert.ok(body.data.timestamp >= before && body.data.timestamp <= Date.now(), String(body.data.timestamp));
    if (row.status === 401) assert.type(body.message, 'string');
  });
}

Upload('IMGHOST_UPLOAD_TOKEN set: 401 comes before the body is read', async () => {
  // Headers promise 10 MB that never come: only an answer without reading can arrive.
  const answer = await rawRequestHeadersOnly(guarded.url, {
    'Content-Type': 'multipart/form-data; boundary=b',
    'Content-Length': String(10 * 1024 * 1024),
  });
  assert.match(answer, /^HTTP\/1\.1 401 /);
});

Upload(`over IMGHOST_MAX_BYTES (${SMALL_MAX_BYTES}) gives 413 and leaves nothing on disk`, async () => {
  const bytes = await makePng(50, 200, 200);
  assert.ok(bytes.length > SMALL_MAX_BYTES);
  const answer = await upload(small.url, bytes, 'big.png');
  assert.is(answer.status, 413);
  assert.is(answer.body.success, false);
  assert.is(answer.body.code, 'PAYLOAD_TOO_LARGE');
  assert.ok(await waitFor(async () => (await filesOf(small)).length === 0));
});

Upload('a declared Content-Length far over the limit gives 413 before the body is read', async () => {
  const answer = await rawRequestHeadersOnly(small.url, {
    'Content-Type': 'multipart/form-data; boundary=b',
    'Content-Length': String(100 * 1024 * 1024),
  });
  assert.match(answer, /^HTTP\/1\.1 413 /);
});

Upload('an upload aborted mid-file leaves nothing behind, temp folder included', async () => {
  const server = open;
  const tempDir = join(server.config.imagesDir, '.tmp');
  const before = await filesOf(server);
  const boundary = 'abortabort';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="x.png"\r\nContent-Type: image/png\r\n\r\n`,
  );
  const half = (await makePng(60, 256, 256)).subarray(0, 20_000);
  const url = new URL(server.url);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n` +
      `Content-Length: 1000000\r\n\r\n`,
  );
  socket.write(head);
  socket.write(half);
  // The temp file exists while the upload streams; then the client vanishes.
  assert.ok(await waitFor(async () => (await listFiles(tempDir)).length === 1), 'temp file never appeared');
  socket.destroy();
  assert.ok(await waitFor(async () => (await filesOf(server)).length === before.length), 'temp file left behind');
  assert.equal(await filesOf(server), before);
});

/** Sends only request headers and returns the raw answer's first bytes. */
function rawRequestHeadersOnly(base: string, headers: Record<string, string>): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer within 3 s: the server waited for the body'));
    }, 3000);
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n\r\n')) {
        clearTimeout(timer);
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on('error', reject);
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`POST /api/upload HTTP/1.1\r\nHost: x\r\n${lines.join('')}\r\n`);
  });
}

// Different bytes with one md5 can be made on purpose (chosen-prefix collisions);
// making one takes hours, so the stored side of the collision is written by hand
// under the md5 of the bytes then uploaded.
const collisions = [
  { what: 'in another format', stored: () => makeGif(70), ext: 'gif', mime: 'image/gif' },
  { what: 'in the same format', stored: () => makeJpeg(71), ext: 'jpg', mime: 'image/jpeg' },
];

for (const row of collisions) {
  Upload(`one md5, one file: other bytes ${row.what} under a stored md5 get 409, and every server serves the stored file`, async () => {
    const incoming = await makeJpeg(72 + collisions.indexOf(row));
    const md5 = md5Of(incoming);
    const stored = await row.stored();
    const shard = join(open.config.imagesDir, md5.slice(0, 2));
    await mkdir(shard, { recursive: true });
    await writeFile(join(shard, `${md5}.${row.ext}`), stored);

    const answer = await upload(open.url, incoming, 'collides.jpg');
    assert.is(answer.status, 409);
    assert.is(answer.body.success, false);
    assert.is(answer.body.code, 'CONFLICT');
    assert.type(answer.body.message, 'string');
    const mine = (await filesOf(open)).filter((path) => path.includes(md5));
    assert.equal(mine, [join(md5.slice(0, 2), `${md5}.${row.ext}`)]);

    // This process (whose cache saw the upload) and a fresh one agree on the file.
    const fresh = await startTestImghost({ DATA_DIR: join(open.config.imagesDir, '..') });
    try {
      for (const base of [open.url, fresh.url]) {
        const served = await fetch(`${base}/img/1/${md5}`);
        assert.is(served.status, 200);
        assert.is(served.headers.get('content-type'), row.mime);
        assert.ok(Buffer.from(await served.arrayBuffer()).equals(stored));
      }
    } finally {
      await fresh.close();
    }
  });
}

Upload('GET /api/upload is 405 with Allow', async () => {
  const answer = await rawRequest(open.url, '/api/upload');
  assert.is(answer.status, 405);
  assert.match(String(answer.headers.allow), /POST/);
});

Upload.run();
