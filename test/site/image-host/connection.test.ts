// What every call to the image host starts and ends with (image-host/connection.ts):
// the token, the user agent and the request id on the way out; the answer read up
// to the call's bound, declared or counted, and the pool usable after a refusal.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openConnection, type Connection } from '../../../src/services/site/image-host/connection.js';
import { AnswerTooLarge } from '../../../src/services/site/image-host/failures.js';
import { DEFAULT_IMAGE_HOST_LIMITS } from '../../../src/services/site/image-host/limits.js';

const BOUND = 1024;
const bounds = { headersTimeoutMs: 5_000, bodyTimeoutMs: 5_000, maxAnswerBytes: BOUND };

let server: Server;
let url: string;
let seen: IncomingHttpHeaders | undefined;

/** GET-free paths: /declared/N answers N bytes with a Content-Length, /chunked/N without one. */
test.before(async () => {
  server = createServer((req, res) => {
    seen = req.headers;
    req.resume();
    req.on('end', () => {
      const [, how, size] = req.url!.split('/');
      const body = Buffer.alloc(Number(size), 'x');
      if (how === 'chunked') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write(body.subarray(0, body.length >> 1));
        res.end(body.subarray(body.length >> 1));
      } else {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
        res.end(body);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function connect(token: string | undefined): Connection {
  return openConnection({ imageHostUrl: url, imageHostPublicUrl: url, imghostUploadToken: token }, DEFAULT_IMAGE_HOST_LIMITS);
}

const answers = [
  { what: 'an answer of exactly the bound, declared', path: `/declared/${BOUND}`, read: true },
  { what: 'an answer of exactly the bound, chunked', path: `/chunked/${BOUND}`, read: true },
  { what: 'an answer declared one byte over', path: `/declared/${BOUND + 1}`, read: false },
  { what: 'a chunked answer one byte over', path: `/chunked/${BOUND + 1}`, read: false },
];
for (const row of answers) {
  test(`send: ${row.what} is ${row.read ? 'read' : 'refused, and the next call is answered'}`, async () => {
    const connection = connect(undefined);
    try {
      const sent = connection.send({ method: 'POST', path: row.path, bounds });
      if (row.read) {
        assert.equal(await sent, { status: 200, text: 'x'.repeat(BOUND) });
        return;
      }
      await sent.then(
        () => assert.unreachable('read'),
        (error: unknown) => assert.instance(error, AnswerTooLarge),
      );
      assert.is((await connection.send({ method: 'POST', path: '/declared/2', bounds })).text, 'xx');
    } finally {
      await connection.close();
    }
  });
}

test('send: the token as a Bearer header, the user agent and the request id; no authorization without a token', async () => {
  const withToken = connect('secret-token');
  const without = connect(undefined);
  try {
    await withToken.send({ method: 'POST', path: '/declared/1', bounds, requestId: 'req-1', body: { contentType: 'application/zip', chunks: zipBytes() } });
    assert.is(seen!.authorization, 'Bearer secret-token');
    assert.is(seen!['x-request-id'], 'req-1');
    assert.is(seen!['user-agent'], 'launcher-web-site');
    assert.is(seen!['content-type'], 'application/zip');
    await without.send({ method: 'DELETE', path: '/declared/1', bounds });
    assert.is(seen!.authorization, undefined);
    assert.is(seen!['x-request-id'], undefined);
  } finally {
    await withToken.close();
    await without.close();
  }
});

async function* zipBytes(): AsyncGenerator<Buffer> {
  yield Buffer.from('PK');
}

test.run();
