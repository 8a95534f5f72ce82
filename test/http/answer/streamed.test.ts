// A streamed answer (http/answer/streamed.ts): its head whole with its length, then
// its bytes; HEAD gets the head alone and never reads the body; a body that fails
// halfway cuts the connection, so a client never takes a short body for a whole one.
import { Readable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sendStreamed, type StreamedBody } from '../../../src/http/answer/index.js';
import { listen, type RunningServer } from '../../../src/http/server.js';
import { testApp } from '../../helpers/test-app.js';

const CHUNK = Buffer.alloc(64 * 1024, 'a');
const HEAD = ['Content-Type', 'application/octet-stream', 'Content-Length', String(CHUNK.length * 4)];
let opened = 0;

/** Four chunks, or one chunk and then a failure. */
function body(fails: boolean): Readable {
  opened += 1;
  let sent = 0;
  return new Readable({
    read() {
      if (fails && sent === 1) return this.destroy(new Error('disk went away'));
      this.push(sent < 4 ? CHUNK : null);
      sent += 1;
    },
  });
}

const writer: StreamedBody = async (res) => {
  res.end(Buffer.concat([CHUNK, CHUNK, CHUNK, CHUNK]));
};

let server: RunningServer;
test.before(async () => {
  const handler = testApp({
    routes: [
      { method: 'GET', path: '/whole', handler: (ctx) => sendStreamed(ctx, 200, HEAD, ctx.method === 'HEAD' ? undefined : body(false), 'test stream failed') },
      { method: 'GET', path: '/given-to-head', handler: (ctx) => sendStreamed(ctx, 200, HEAD, body(false), 'test stream failed') },
      { method: 'GET', path: '/cut', handler: (ctx) => sendStreamed(ctx, 200, HEAD, body(true), 'test stream failed') },
      { method: 'GET', path: '/writer', handler: (ctx) => sendStreamed(ctx, 200, HEAD, writer, 'test stream failed') },
    ],
  });
  server = await listen(handler, '127.0.0.1', 0);
});
test.after(async () => {
  await server.close(500);
});

test('streamed: the head with its length, then every byte, and the request id', async () => {
  for (const what of ['/whole', '/writer']) {
    const res = await fetch(`${server.url}${what}`);
    assert.is(res.status, 200, what);
    assert.is(res.headers.get('content-length'), String(CHUNK.length * 4), what);
    assert.ok(res.headers.get('x-request-id'), what);
    assert.is(Buffer.from(await res.arrayBuffer()).length, CHUNK.length * 4, what);
  }
});

test('streamed: HEAD gets the head alone; a stream given to a HEAD is never read', async () => {
  for (const what of ['/whole', '/given-to-head']) {
    const before = opened;
    const res = await fetch(`${server.url}${what}`, { method: 'HEAD' });
    assert.is(res.status, 200, what);
    assert.is(res.headers.get('content-length'), String(CHUNK.length * 4), what);
    assert.is((await res.arrayBuffer()).byteLength, 0, what);
    assert.is(opened - before, what === '/whole' ? 0 : 1, what);
  }
});

test('streamed: a body that fails halfway cuts the connection, never a short body that looks whole', async () => {
  // Cut before or after the head reached the client: either way the fetch fails.
  let failed = false;
  try {
    await (await fetch(`${server.url}/cut`)).arrayBuffer();
  } catch {
    failed = true;
  }
  assert.ok(failed, 'the answer must fail to arrive whole');
});

test.run();
