// Heads prepared once and given to Node as text (http/answer/head-text.ts): on the wire
// they must be byte for byte the heads Node writes from the same headers, with
// Node's own Date, Connection and Keep-Alive, whatever the client asked of the
// connection.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { prepareJson, sendPrepared } from '../../../src/http/answer/index.js';
import { AppResponse, RENDERED_HEADS } from '../../../src/http/answer/head.js';
import { RenderedHead, renderLines } from '../../../src/http/answer/head-text.js';
import { listen, type RunningServer } from '../../../src/http/server.js';
import { rawExchange, type RawExchange } from '../../helpers/raw-http.js';
import { testApp } from '../../helpers/test-app.js';

const PREPARED = prepareJson({ prepared: true }, { cacheControl: 'public, max-age=60', headers: { 'Access-Control-Allow-Origin': '*' } });
let server: RunningServer;
/** A second service in the same process with answer headers of its own, sending the same prepared answer. */
let other: RunningServer;

test.before(async () => {
  const handler = testApp({
    routes: [
      { method: 'GET', path: '/prepared', handler: (ctx) => sendPrepared(ctx, PREPARED) },
      // The same answer with its head written by Node, header by header.
      {
        method: 'GET',
        path: '/by-hand',
        handler: (ctx) => {
          const own = { ETag: PREPARED.etag!, 'Cache-Control': 'public, max-age=60', 'Access-Control-Allow-Origin': '*' };
          if (ctx.req.headers['if-none-match'] === PREPARED.etag) return void ctx.res.writeHead(304, own).end();
          ctx.res
            .writeHead(200, { ...own, 'Content-Type': PREPARED.contentType, 'Content-Length': PREPARED.body.length })
            .end(PREPARED.body);
        },
      },
      {
        method: 'GET',
        path: '/cookie-then-prepared',
        handler: (ctx) => {
          ctx.res.setHeader('Set-Cookie', 'seen=1; Path=/');
          sendPrepared(ctx, PREPARED);
        },
      },
    ],
  });
  server = await listen(handler, '127.0.0.1', 0);
  other = await listen(
    testApp({ answerHeaders: Object.freeze(['X-Other-Service', 'yes']), routes: [{ method: 'GET', path: '/prepared', handler: (ctx) => sendPrepared(ctx, PREPARED) }] }),
    '127.0.0.1',
    0,
  );
});

test.after(async () => {
  await server.close(500);
  await other.close(500);
});

test('heads are written from text on this Node (the check at load found them the same as Node writes)', () => {
  assert.is(RENDERED_HEADS, true);
});

const refused: Array<{ what: string; list: Array<string | number | string[]> }> = [
  { what: 'an array value (Node writes a line per value)', list: ['Set-Cookie', ['a=1', 'b=2']] },
  { what: 'Connection (Node decides keep-alive from it)', list: ['Connection', 'close'] },
  { what: 'Content-Length in any case', list: ['content-LENGTH', 5] },
  { what: 'Transfer-Encoding', list: ['Transfer-Encoding', 'chunked'] },
  { what: 'Date', list: ['Date', 'Thu, 26 Nov 2026 12:00:00 GMT'] },
  { what: 'Keep-Alive', list: ['Keep-Alive', 'timeout=5'] },
  { what: 'Content-Disposition (Node re-encodes its value)', list: ['Content-Disposition', 'attachment'] },
  { what: 'a value with a line break', list: ['X-Note', 'a\r\nInjected: yes'] },
  { what: 'a name that is not a token', list: ['Bad Name', 'x'] },
];
for (const c of refused) {
  test(`renderLines leaves to Node: ${c.what}`, () => {
    assert.is(renderLines(c.list as never), undefined);
  });
}

test('renderLines writes each header as Node does', () => {
  assert.is(renderLines(['ETag', '"x"', 'X-Count', 3]), 'ETag: "x"\r\nX-Count: 3\r\n');
  assert.is(renderLines([]), '');
});

/** The head's lines as sent, with the request id and the date (which differ between any two answers) blanked. */
function headOf(exchange: RawExchange): string[] {
  return exchange.headers.map(([name, value]) => `${name}: ${name === 'x-request-id' || name === 'date' ? '-' : value}`);
}

const exchanges: Array<{ what: string; request: (path: string) => string; waitMs: number }> = [
  { what: 'HTTP/1.1 kept alive', request: (path) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`, waitMs: 300 },
  { what: 'HTTP/1.1 with Connection: close', request: (path) => `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, waitMs: 5000 },
  { what: 'HTTP/1.0', request: (path) => `GET ${path} HTTP/1.0\r\nHost: x\r\n\r\n`, waitMs: 5000 },
  { what: 'HTTP/1.0 with keep-alive', request: (path) => `GET ${path} HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n`, waitMs: 300 },
  {
    what: 'a 304',
    request: (path) => `GET ${path} HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${PREPARED.etag}\r\nConnection: close\r\n\r\n`,
    waitMs: 5000,
  },
  { what: 'HEAD', request: (path) => `HEAD ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, waitMs: 5000 },
];
for (const c of exchanges) {
  test(`a prepared head is the head Node writes from the same headers: ${c.what}`, async () => {
    const prepared = await rawExchange(server.url, c.request('/prepared'), c.waitMs);
    const byHand = await rawExchange(server.url, c.request('/by-hand'), c.waitMs);
    assert.ok(prepared.status === 200 || prepared.status === 304, `status ${prepared.status}`);
    assert.equal(headOf(prepared), headOf(byHand));
    assert.is(prepared.body, byHand.body);
  });
}

/** What each head written meanwhile was given to Node as: 'text' (a RenderedHead) or 'list'. */
async function headKinds(during: () => Promise<unknown>): Promise<string[]> {
  const kinds: string[] = [];
  const original = AppResponse.prototype._storeHeader;
  AppResponse.prototype._storeHeader = function (this: AppResponse, firstLine: string, headers: unknown) {
    kinds.push(headers instanceof RenderedHead ? 'text' : 'list');
    return original.call(this, firstLine, headers);
  };
  try {
    await during();
  } finally {
    AppResponse.prototype._storeHeader = original;
  }
  return kinds;
}

test('a prepared answer\'s head, 200 and 304, is given to Node as text; after a setHeader, as a list', async () => {
  const close = 'Connection: close\r\n\r\n';
  const kinds = await headKinds(async () => {
    await rawExchange(server.url, `GET /prepared HTTP/1.1\r\nHost: x\r\n${close}`);
    await rawExchange(server.url, `GET /prepared HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${PREPARED.etag}\r\n${close}`);
    await rawExchange(server.url, `GET /cookie-then-prepared HTTP/1.1\r\nHost: x\r\n${close}`);
    await rawExchange(server.url, `GET /by-hand HTTP/1.1\r\nHost: x\r\n${close}`);
  });
  assert.equal(kinds, ['text', 'text', 'list', 'list']);
});

test('two services of one process sending the same prepared answer each write their own headers, in turn', async () => {
  const close = 'GET /prepared HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
  for (let round = 0; round < 3; round++) {
    for (const [url, ours, theirs] of [[server.url, 'x-frame-options', 'x-other-service'], [other.url, 'x-other-service', 'x-frame-options']] as const) {
      const names = (await rawExchange(url, close)).headers.map(([name]) => name);
      assert.ok(names.includes(ours) && !names.includes(theirs), `${url}: ${names.join(', ')}`);
    }
  }
});

test('a header set with setHeader before a prepared answer is kept, with ours once each', async () => {
  const exchange = await rawExchange(server.url, 'GET /cookie-then-prepared HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  const names = exchange.headers.map(([name]) => name);
  assert.is(exchange.status, 200);
  assert.ok(names.includes('set-cookie'));
  for (const name of ['x-request-id', 'x-content-type-options', 'etag', 'content-length']) {
    assert.is(names.filter((each) => each === name).length, 1, name);
  }
  assert.is(exchange.body, PREPARED.body.toString());
});

test.run();
