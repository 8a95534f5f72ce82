// What every answer carries, however it is made: the answer's own headers merged
// with ours by name, the answers Node would write itself (client-error.ts), and the
// request log of requests that end without a complete answer.
import { connect, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp, type AppHandler } from '../../src/http/app.js';
import { createLogger } from '../../src/lib/log.js';
import { sendText } from '../../src/http/answer/index.js';
import { listen, type RunningServer } from '../../src/http/server.js';
import { renderSiteError } from '../../src/services/site/errors.js';
import { headerValues, rawExchange, type RawExchange } from '../helpers/raw-http.js';

let server: RunningServer;
let handler: AppHandler;
const logged: string[] = [];
/** Server-side sockets of requests to /hang, by the request id the client sent. */
const hanging = new Map<string, Socket>();

const SECURITY = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'strict-origin-when-cross-origin', 'x-frame-options': 'DENY' };

test.before(async () => {
  const log = createLogger({}, { level: 'info', write: (line) => void logged.push(line) });
  handler = createApp<object>({
    name: 'test',
    log,
    trustProxy: false,
    createLocals: () => ({}),
    renderError: renderSiteError,
    routes: [
      { method: 'GET', path: '/plain', handler: (ctx) => sendText(ctx, 200, 'ok') },
      {
        method: 'GET',
        path: '/set-then-respond',
        handler: (ctx) => {
          ctx.res.setHeader('X-Frame-Options', 'SAMEORIGIN');
          sendText(ctx, 200, 'ok');
        },
      },
      {
        method: 'GET',
        path: '/set-then-end',
        handler: (ctx) => {
          ctx.res.setHeader('X-Frame-Options', 'SAMEORIGIN');
          ctx.res.end('ok');
        },
      },
      {
        method: 'GET',
        path: '/in-head-list',
        handler: (ctx) => void ctx.res.writeHead(200, ['X-Frame-Options', 'SAMEORIGIN', 'Content-Length', 2]).end('ok'),
      },
      {
        method: 'GET',
        path: '/in-head-object',
        handler: (ctx) => void ctx.res.writeHead(200, 'Fine', { 'x-frame-options': 'SAMEORIGIN', 'Content-Length': 2 }).end('ok'),
      },
      {
        method: 'GET',
        path: '/own-request-id',
        handler: (ctx) => sendText(ctx, 200, 'ok', { 'X-Request-Id': 'handler-chosen' }),
      },
      {
        method: 'GET',
        path: '/hang',
        // Never answers by itself: ends when the connection does.
        handler: (ctx) => {
          hanging.set(ctx.id, ctx.req.socket);
          return new Promise<void>((resolve) => ctx.res.on('close', resolve));
        },
      },
      {
        method: 'GET',
        path: '/half',
        handler: (ctx) => {
          ctx.res.writeHead(200, { 'Content-Length': 10 }).write('12345');
          return new Promise<void>((resolve) => ctx.res.on('close', resolve));
        },
      },
    ],
  });
  server = await listen(handler, '127.0.0.1', 0);
});

test.after(async () => {
  await server.close(200);
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
const entries = (from: number) => logged.slice(from).map((line) => JSON.parse(line) as Record<string, unknown>);

function assertOursOnce(exchange: RawExchange, frameOptions = 'DENY'): void {
  assert.is(headerValues(exchange, 'x-request-id').length, 1, 'one X-Request-Id');
  assert.match(headerValues(exchange, 'x-request-id')[0]!, /^[A-Za-z0-9._-]{1,64}$/);
  for (const [name, value] of Object.entries({ ...SECURITY, 'x-frame-options': frameOptions })) {
    assert.equal(headerValues(exchange, name), [value], name);
  }
}

// Regression: a handler's setHeader of a header we prepend was silently replaced
// by ours, and one given in writeHead was sent twice (ours and its own).
const mergeCases = [
  { what: 'nothing of ours named: ours, once each', path: '/plain', frameOptions: 'DENY' },
  { what: 'setHeader then answer/send.ts', path: '/set-then-respond', frameOptions: 'SAMEORIGIN' },
  { what: 'setHeader then end (implicit head)', path: '/set-then-end', frameOptions: 'SAMEORIGIN' },
  { what: 'in a writeHead list', path: '/in-head-list', frameOptions: 'SAMEORIGIN' },
  { what: 'in a writeHead object, lower case, with a reason', path: '/in-head-object', frameOptions: 'SAMEORIGIN' },
];
for (const c of mergeCases) {
  test(`answer head: the answer's own value of a header of ours wins and is sent once (${c.what})`, async () => {
    const exchange = await rawExchange(server.url, `GET ${c.path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
    assert.is(exchange.status, 200);
    assert.is(exchange.body, 'ok');
    assertOursOnce(exchange, c.frameOptions);
  });
}

test("answer head: a handler's own X-Request-Id wins and is sent once", async () => {
  const exchange = await rawExchange(server.url, 'GET /own-request-id HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n');
  assert.equal(headerValues(exchange, 'x-request-id'), ['handler-chosen']);
});

// Regression: Node answered these itself, without a request id, the security
// headers or a log line.
const clientErrorCases = [
  { what: 'a request line Node cannot parse', bytes: 'NOT A REQUEST\r\n\r\n', status: 400, code: 'BAD_REQUEST', line: 'client error' },
  { what: 'a header name with a space', bytes: 'GET /plain HTTP/1.1\r\nHost: t\r\nBad Name: 1\r\n\r\n', status: 400, code: 'BAD_REQUEST', line: 'client error' },
  { what: 'headers over the limit', bytes: `GET /plain HTTP/1.1\r\nHost: t\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, status: 431, code: 'BAD_REQUEST', line: 'client error' },
  { what: 'HTTP/1.1 without Host', bytes: 'GET /plain HTTP/1.1\r\nConnection: close\r\n\r\n', status: 400, code: 'BAD_REQUEST', line: 'request' },
];
for (const c of clientErrorCases) {
  test(`client errors: ${c.what} gives ${c.status} with a request id, the security headers, the error body and one log line`, async () => {
    const before = logged.length;
    const exchange = await rawExchange(server.url, c.bytes);
    assert.is(exchange.status, c.status);
    assertOursOnce(exchange);
    assert.is(JSON.parse(exchange.body).code, c.code);
    assert.is(JSON.parse(exchange.body).success, false);
    await settle();
    const lines = entries(before);
    assert.is(lines.length, 1, JSON.stringify(lines));
    assert.is(lines[0]!.msg, c.line);
    assert.is(lines[0]!.status, c.status);
    assert.is(lines[0]!.requestId, headerValues(exchange, 'x-request-id')[0]);
  });
}

test('client errors: a socket that is already gone is never written to, and no answer is logged', async () => {
  const before = logged.length;
  const { client, serverSide } = await socketPair();
  serverSide.destroy();
  const written: unknown[] = [];
  serverSide.write = ((chunk: unknown) => (written.push(chunk), true)) as Socket['write'];
  handler.clientError(Object.assign(new Error('parse'), { code: 'HPE_INVALID_METHOD' }), serverSide);
  assert.equal(written, []);
  await settle();
  assert.equal(entries(before), []);
  client.destroy();
});

test('client errors: a timeout of a request in flight is answered 408 with its id, and logged once as that request', async () => {
  const before = logged.length;
  const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
  const received: Buffer[] = [];
  socket.on('data', (chunk) => received.push(chunk));
  const closed = new Promise((resolve) => socket.on('close', resolve));
  socket.write('GET /hang HTTP/1.1\r\nHost: t\r\nX-Request-Id: timed-out-1\r\n\r\n');
  while (!hanging.has('timed-out-1')) await new Promise((resolve) => setTimeout(resolve, 5));
  handler.clientError(Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), hanging.get('timed-out-1')!);
  await closed;
  const answer = Buffer.concat(received).toString();
  assert.match(answer, /^HTTP\/1\.1 408 /);
  assert.match(answer, /\r\nX-Request-Id: timed-out-1\r\n/);
  await settle();
  assert.equal(
    entries(before).map((entry) => [entry.msg, entry.requestId, entry.status, entry.aborted]),
    [['request', 'timed-out-1', 408, true]],
  );
});

// Regression: a request whose client went away before any answer was logged as
// status 200 (the default statusCode of a response never written).
const abortCases = [
  { what: 'before any answer', path: '/hang', status: 499 },
  { what: 'in the middle of the body', path: '/half', status: 200 },
];
for (const c of abortCases) {
  test(`request log: a client gone ${c.what} is logged with status ${c.status} and aborted`, async () => {
    const before = logged.length;
    const id = `abort-${c.status}`;
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    const firstData = new Promise((resolve) => socket.once('data', resolve));
    socket.write(`GET ${c.path} HTTP/1.1\r\nHost: t\r\nX-Request-Id: ${id}\r\n\r\n`);
    if (c.path === '/half') await firstData;
    else while (!hanging.has(id)) await new Promise((resolve) => setTimeout(resolve, 5));
    socket.destroy();
    await settle();
    assert.equal(
      entries(before).map((entry) => [entry.requestId, entry.status, entry.aborted]),
      [[id, c.status, true]],
    );
  });
}

test('request log: a complete answer has no aborted field', async () => {
  const before = logged.length;
  await rawExchange(server.url, 'GET /plain HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n');
  await settle();
  const lines = entries(before);
  assert.is(lines.length, 1);
  assert.is(lines[0]!.status, 200);
  assert.is(lines[0]!.aborted, undefined);
});

/** Both ends of one TCP connection, through a listener of our own. */
async function socketPair(): Promise<{ client: Socket; serverSide: Socket }> {
  const { createServer } = await import('node:net');
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<Socket>((resolve) => listener.once('connection', resolve));
  const client = connect((listener.address() as { port: number }).port, '127.0.0.1');
  client.on('error', () => {});
  const serverSide = await accepted;
  serverSide.on('error', () => {});
  listener.close();
  return { client, serverSide };
}

test.run();
