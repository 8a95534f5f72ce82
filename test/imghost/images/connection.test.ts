// The upload route over a raw socket: what the connection looks like after an
// upload (pipelined requests), and `Expect: 100-continue`.
import { connect, type Socket } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeJpeg, makePng } from '../../fixtures/images/generate.js';
import { startTestImghost, type TestServer } from '../../helpers/servers.js';

const TOKEN = 'connection-test-token';
const MAX_BYTES = 50_000;

let server: TestServer;
const Connection = suite('upload connections');

Connection.before(async () => {
  server = await startTestImghost({ IMGHOST_UPLOAD_TOKEN: TOKEN, IMGHOST_MAX_BYTES: String(MAX_BYTES) });
});

Connection.after(async () => {
  await server?.close();
});

interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

/** Reads answers off a socket as they come, each head plus its Content-Length body. */
function answerReader(socket: Socket) {
  let buffer = Buffer.alloc(0);
  let closed = false;
  const waiters: Array<() => void> = [];
  const wake = () => waiters.splice(0).forEach((resolve) => resolve());
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    wake();
  });
  socket.on('close', () => {
    closed = true;
    wake();
  });
  socket.on('error', () => {});

  function take(): RawAnswer | null {
    const end = buffer.indexOf('\r\n\r\n');
    if (end === -1) return null;
    const head = buffer.subarray(0, end).toString('latin1');
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
    const length = status === 100 ? 0 : Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (buffer.length < end + 4 + length) return null;
    const body = buffer.subarray(end + 4, end + 4 + length).toString('utf8');
    buffer = buffer.subarray(end + 4 + length);
    return { status, head, body };
  }

  return {
    /** The next answer, or null when the connection closed first or nothing came in time. */
    async next(timeoutMs = 5000): Promise<RawAnswer | null> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const answer = take();
        if (answer) return answer;
        if (closed || Date.now() > until) return null;
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
    get closed() {
      return closed;
    },
  };
}

async function open(): Promise<Socket> {
  const url = new URL(server.url);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise((resolve) => socket.once('connect', resolve));
  return socket;
}

/**
 * The parser stops at the close delimiter and leaves what follows (the epilogue,
 * RFC 2046 5.1.1) unread: usually a CRLF, but any text is allowed there, and once it
 * is more than the request's buffer holds, the socket stops being read.
 */
function form(file: Buffer, epilogue = '\r\n', boundary = 'pipelined'): Buffer {
  return Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="x.png"\r\nContent-Type: image/png\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${boundary}--${epilogue}`),
  ]);
}

const LARGE_EPILOGUE = '\r\n' + 'epilogue '.repeat(30_000);

const uploadHead = (length: number, extra = '') =>
  `POST /api/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n` +
  `Content-Type: multipart/form-data; boundary=pipelined\r\nContent-Length: ${length}\r\n${extra}\r\n`;

const pipelined = [
  { what: 'after a successful upload', file: () => makePng(8000), epilogue: '\r\n', status: 200 },
  { what: 'after a successful upload with a 270 KB epilogue', file: () => makePng(8003), epilogue: LARGE_EPILOGUE, status: 200 },
  { what: 'after an upload refused by content (not an image)', file: async () => Buffer.from('plain text, not an image at all'), epilogue: LARGE_EPILOGUE, status: 400 },
  { what: 'after an upload refused by sharp (truncated image)', file: async () => (await makeJpeg(8001)).subarray(0, 400), epilogue: LARGE_EPILOGUE, status: 400 },
];

for (const row of pipelined) {
  Connection(`pipelined request ${row.what} is answered on the same connection`, async () => {
    const body = form(await row.file(), row.epilogue);
    const socket = await open();
    const answers = answerReader(socket);
    // Both requests in one write: the second waits in the socket behind the first.
    socket.write(Buffer.concat([Buffer.from(uploadHead(body.length)), body, Buffer.from('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')]));
    const first = await answers.next();
    assert.is(first?.status, row.status, first?.body);
    const second = await answers.next();
    socket.destroy();
    assert.ok(second, 'the pipelined request was never answered');
    assert.is(second!.status, 200);
    assert.equal(JSON.parse(second!.body), { status: 'ok' });
  });
}

const refusedEarly = [
  { what: 'a wrong token', headers: `Authorization: Bearer wrong\r\nContent-Length: 1000\r\n`, status: 401 },
  { what: 'no token', headers: `Content-Length: 1000\r\n`, status: 401 },
  { what: 'a declared size over the limit', headers: `Authorization: Bearer ${TOKEN}\r\nContent-Length: ${100 * MAX_BYTES}\r\n`, status: 413 },
];

for (const row of refusedEarly) {
  Connection(`Expect: 100-continue with ${row.what} is refused at once, without 100`, async () => {
    const socket = await open();
    const answers = answerReader(socket);
    socket.write(
      `POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n${row.headers}Expect: 100-continue\r\n\r\n`,
    );
    const answer = await answers.next();
    assert.ok(answer, 'no answer: the server waited for a body it never invited');
    assert.is(answer!.status, row.status);
    assert.equal(Object.keys(JSON.parse(answer!.body)).sort(), ['code', 'error', 'message', 'success']);
    // The body was never sent, so the connection cannot carry another request.
    assert.ok((await answers.next(3000)) === null && answers.closed, 'connection left open after a refused 100-continue');
    socket.destroy();
  });
}

Connection('Expect: 100-continue on an acceptable upload gets 100, then the upload succeeds', async () => {
  const body = form(await makePng(8002));
  const socket = await open();
  const answers = answerReader(socket);
  socket.write(uploadHead(body.length, 'Expect: 100-continue\r\n'));
  const interim = await answers.next();
  assert.is(interim?.status, 100);
  socket.write(body);
  const final = await answers.next();
  socket.destroy();
  assert.is(final?.status, 200);
  assert.is(JSON.parse(final!.body).success, true);
});

Connection('Expect: 100-continue elsewhere than the upload gets 100 as before', async () => {
  const socket = await open();
  const answers = answerReader(socket);
  socket.write('POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n');
  const interim = await answers.next();
  assert.is(interim?.status, 100);
  socket.write('{}');
  const final = await answers.next();
  socket.destroy();
  assert.is(final?.status, 405);
});

Connection.run();
