// The HTTP core over a real server: routing answers, envelopes, body limits and
// the error path. Uses the site's envelope renderer, as the site does.
import { request } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../src/http/app.js';
import { HttpError } from '../../src/http/errors.js';
import { silentLogger } from '../../src/lib/log.js';
import { jsonBody } from '../../src/http/json-body.js';
import { prepareJson, redirect, sendNoContent, sendOk, sendPrepared } from '../../src/http/answer/index.js';
import { listen, type RunningServer } from '../../src/http/server.js';
import { renderSiteError } from '../../src/services/site/errors.js';
import { rawRequest } from '../helpers/raw-http.js';

let server: RunningServer;
const PREPARED = prepareJson({ prepared: true }, { cacheControl: 'public, max-age=60' });
const logged: string[] = [];
let calls = 0;

test.before(async () => {
  const { createLogger } = await import('../../src/lib/log.js');
  const log = createLogger({}, { level: 'debug', write: (line) => void logged.push(line) });
  const handler = createApp<any>({
    name: 'test',
    log,
    trustProxy: false,
    createLocals: () => ({}),
    renderError: renderSiteError,
    routes: [
      { method: 'GET', path: '/things/:id', handler: (ctx) => sendOk(ctx, { id: ctx.params.id }) },
      { method: 'POST', path: '/things', use: [jsonBody()], handler: (ctx) => sendOk(ctx, { body: ctx.body }, 201) },
      { method: 'GET', path: '/boom', handler: () => { throw new Error('secret detail at /srv/app.js:12'); } },
      { method: 'GET', path: '/teapot', handler: () => { throw new HttpError(400, 'VALIDATION_FAILED', 'bad name', { field: 'name' }); } },
      // Heads written other ways than answer/send.ts: implicit (setHeader then end) and
      // explicit with a reason phrase and an object.
      {
        method: 'GET',
        path: '/direct',
        handler: (ctx) => {
          ctx.res.setHeader('Content-Type', 'text/plain');
          ctx.res.setHeader('Content-Length', 6);
          ctx.res.end('direct');
        },
      },
      {
        method: 'GET',
        path: '/explicit',
        handler: (ctx) => void ctx.res.writeHead(201, 'Made', { 'Content-Type': 'text/plain', 'Content-Length': 2 }).end('ok'),
      },
      { method: 'GET', path: '/moved', handler: (ctx) => redirect(ctx, '/things/1') },
      // A prepared answer: its 304 and its 200 are written from heads made once (http/answer/head.ts).
      { method: 'GET', path: '/prepared', handler: (ctx) => sendPrepared(ctx, PREPARED) },
      { method: 'GET', path: '/empty', handler: (ctx) => sendNoContent(ctx) },
      // A header value Node refuses: writeHead throws after it has set its reason phrase.
      { method: 'GET', path: '/bad-location', handler: (ctx) => redirect(ctx, '/a\nb') },
      {
        method: 'GET',
        path: '/fails-late',
        handler: (ctx) => {
          ctx.res.setHeader('ETag', '"stale"');
          throw new HttpError(409, 'CONFLICT', 'too late');
        },
      },
      {
        method: 'GET',
        path: '/counted',
        handler: (ctx) => {
          calls++;
          sendOk(ctx, { calls });
        },
      },
    ],
  });
  void silentLogger;
  server = await listen(handler, '127.0.0.1', 0);
});

test.after(async () => {
  await server.close(500);
});

test('a route answers in the success envelope with decoded parameters', async () => {
  const res = await rawRequest(server.url, 'GET', '/things/a%20b');
  assert.is(res.status, 200);
  assert.equal(JSON.parse(res.body), { success: true, id: 'a b' });
  assert.is(res.headers['x-content-type-options'], 'nosniff');
  assert.ok(res.headers['referrer-policy']);
  assert.ok(res.headers['x-request-id']);
});

test('malformed percent escape in the path gives 400 BAD_REQUEST, not 500', async () => {
  for (const path of ['/%E0%A4%A', '/things/%E0%A4%A', '/things/%zz', '/nowhere/%']) {
    const res = await rawRequest(server.url, 'GET', path);
    assert.is(res.status, 400, path);
    const body = JSON.parse(res.body);
    assert.is(body.success, false);
    assert.is(body.code, 'BAD_REQUEST');
  }
});

test('unknown path gives the 404 envelope', async () => {
  const res = await rawRequest(server.url, 'GET', '/nope');
  assert.is(res.status, 404);
  assert.equal(JSON.parse(res.body), { success: false, error: JSON.parse(res.body).error, code: 'NOT_FOUND' });
});

test('wrong method gives 405 with Allow', async () => {
  const res = await rawRequest(server.url, 'DELETE', '/things/1');
  assert.is(res.status, 405);
  assert.is(res.headers.allow, 'GET, HEAD');
  assert.is(JSON.parse(res.body).code, 'METHOD_NOT_ALLOWED');
  const post = await rawRequest(server.url, 'GET', '/things');
  assert.is(post.status, 405);
  assert.is(post.headers.allow, 'POST');
});

test('HEAD is served by the GET handler without a body', async () => {
  const res = await rawRequest(server.url, 'HEAD', '/things/x');
  assert.is(res.status, 200);
  assert.is(res.body, '');
  assert.is(Number(res.headers['content-length']), JSON.stringify({ success: true, id: 'x' }).length);
});

test('JSON body: parsed and echoed', async () => {
  const res = await rawRequest(server.url, 'POST', '/things', {
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({ a: [1, 'ü'] }),
  });
  assert.is(res.status, 201);
  assert.equal(JSON.parse(res.body), { success: true, body: { a: [1, 'ü'] } });
});

test('JSON body: text/plain gives 415, missing type gives 415', async () => {
  for (const type of ['text/plain', undefined]) {
    const res = await rawRequest(server.url, 'POST', '/things', { headers: type ? { 'content-type': type } : {}, body: '{}' });
    assert.is(res.status, 415);
    assert.is(JSON.parse(res.body).code, 'UNSUPPORTED_MEDIA_TYPE');
  }
});

test('JSON body: malformed gives 400 BAD_REQUEST; empty gives 400', async () => {
  for (const body of ['{"a":', '']) {
    const res = await rawRequest(server.url, 'POST', '/things', { headers: { 'content-type': 'application/json' }, body });
    assert.is(res.status, 400);
    assert.is(JSON.parse(res.body).code, 'BAD_REQUEST');
  }
});

test('JSON body: 2 MiB declared body gives 413 before reading', async () => {
  const body = JSON.stringify({ big: 'x'.repeat(2 * 1024 * 1024) });
  const res = await rawRequest(server.url, 'POST', '/things', { headers: { 'content-type': 'application/json' }, body }).catch(
    (error) => ({ status: -1, body: String(error), headers: {} }),
  );
  assert.is(res.status, 413);
  assert.is(JSON.parse(res.body).code, 'PAYLOAD_TOO_LARGE');
});

test('JSON body: 2 MiB chunked body (no Content-Length) gives 413 while streaming', async () => {
  const { request } = await import('node:http');
  const url = new URL(server.url);
  const status = await new Promise<number>((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: 'POST', path: '/things', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (error) => (/EPIPE|ECONNRESET/.test(String(error)) ? undefined : reject(error)));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < 2 * 1024 * 1024) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
  assert.is(status, 413);
});

test('an unknown error is a logged 500 INTERNAL with a generic message', async () => {
  const res = await rawRequest(server.url, 'GET', '/boom');
  assert.is(res.status, 500);
  const body = JSON.parse(res.body);
  assert.is(body.code, 'INTERNAL');
  assert.not.ok(res.body.includes('secret'), 'internal detail leaked');
  assert.not.ok(res.body.includes('/srv/'), 'path leaked');
  assert.ok(logged.some((line) => line.includes('unhandled error') && line.includes('secret detail')));
});

test('validation errors carry field', async () => {
  const res = await rawRequest(server.url, 'GET', '/teapot');
  assert.is(res.status, 400);
  assert.equal(JSON.parse(res.body), { success: false, error: 'bad name', code: 'VALIDATION_FAILED', field: 'name' });
});

test('one JSON access-log line per request, without the query string', async () => {
  const before = logged.length;
  await rawRequest(server.url, 'GET', '/counted?code=SECRETCODE');
  await new Promise((resolve) => setTimeout(resolve, 20));
  const lines = logged.slice(before).map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request');
  assert.is(lines.length, 1);
  assert.is(lines[0].path, '/counted');
  assert.is(lines[0].status, 200);
  assert.ok(lines[0].requestId);
  assert.not.ok(JSON.stringify(lines[0]).includes('SECRETCODE'));
});

// Security headers on every answer, and a request id. They are written
// with the head (http/answer/head.ts), whichever way the head is written.
const everyKindOfAnswer = [
  { what: 'answer/send.ts success', method: 'GET', path: '/things/1', status: 200 },
  { what: 'HEAD', method: 'HEAD', path: '/things/1', status: 200 },
  { what: 'unknown path', method: 'GET', path: '/nope', status: 404 },
  { what: 'wrong method', method: 'DELETE', path: '/things/1', status: 405 },
  { what: 'bad escape in the path', method: 'GET', path: '/things/%zz', status: 400 },
  { what: 'over-long target', method: 'GET', path: '/things/' + 'a'.repeat(9000), status: 414 },
  { what: 'unknown error', method: 'GET', path: '/boom', status: 500 },
  { what: 'error after a header was set', method: 'GET', path: '/fails-late', status: 409 },
  { what: 'redirect', method: 'GET', path: '/moved', status: 302 },
  { what: 'setHeader then end (implicit head)', method: 'GET', path: '/direct', status: 200 },
  { what: 'writeHead with a reason phrase and an object', method: 'GET', path: '/explicit', status: 201 },
  { what: 'prepared answer', method: 'GET', path: '/prepared', status: 200 },
  { what: 'prepared answer, 304', method: 'GET', path: '/prepared', status: 304, headers: { 'If-None-Match': PREPARED.etag! } },
  { what: 'no content', method: 'GET', path: '/empty', status: 204 },
];
for (const c of everyKindOfAnswer) {
  test(`security headers and request id on every answer: ${c.what}`, async () => {
    const res = await rawRequest(server.url, c.method, c.path, { headers: c.headers });
    assert.is(res.status, c.status);
    assert.is(res.headers['x-content-type-options'], 'nosniff');
    assert.is(res.headers['referrer-policy'], 'strict-origin-when-cross-origin');
    assert.is(res.headers['x-frame-options'], 'DENY');
    assert.match(String(res.headers['x-request-id']), /^[A-Za-z0-9._-]{1,64}$/);
  });
}

test('a head that Node refuses becomes a clean 500, not "500 Found"', async () => {
  const res = await new Promise<{ status: number; message: string }>((resolve, reject) => {
    const url = new URL(server.url);
    request({ host: url.hostname, port: url.port, path: '/bad-location' }, (answer) => {
      answer.resume();
      resolve({ status: answer.statusCode ?? 0, message: answer.statusMessage ?? '' });
    })
      .on('error', reject)
      .end();
  });
  assert.equal(res, { status: 500, message: 'Internal Server Error' });
});

test('an error answer drops what the failed handler had set', async () => {
  const res = await rawRequest(server.url, 'GET', '/fails-late');
  assert.is(res.headers.etag, undefined);
  assert.is(JSON.parse(res.body).code, 'CONFLICT');
});

test('heads written outside answer/send.ts keep their own headers', async () => {
  const direct = await rawRequest(server.url, 'GET', '/direct');
  assert.is(direct.body, 'direct');
  assert.is(direct.headers['content-type'], 'text/plain');
  const explicit = await rawRequest(server.url, 'GET', '/explicit');
  assert.is(explicit.body, 'ok');
  assert.is(explicit.headers['content-type'], 'text/plain');
});

test('generated request ids differ from one request to the next', async () => {
  const ids = new Set<unknown>();
  for (let i = 0; i < 5; i++) ids.add((await rawRequest(server.url, 'GET', '/things/1')).headers['x-request-id']);
  assert.is(ids.size, 5);
});

test('refused requests are logged too, and the log has the answer bytes and its request id', async () => {
  const before = logged.length;
  const notFound = await rawRequest(server.url, 'GET', '/nope');
  const tooLong = await rawRequest(server.url, 'GET', '/things/' + 'a'.repeat(9000));
  const direct = await rawRequest(server.url, 'GET', '/direct');
  const explicit = await rawRequest(server.url, 'GET', '/explicit');
  await new Promise((resolve) => setTimeout(resolve, 20));
  const lines = logged.slice(before).map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request');
  assert.equal(
    lines.map((entry) => [entry.status, entry.requestId, entry.bytes]),
    [
      [404, notFound.headers['x-request-id'], Buffer.byteLength(notFound.body)],
      [414, tooLong.headers['x-request-id'], Buffer.byteLength(tooLong.body)],
      [200, direct.headers['x-request-id'], 6],
      [201, explicit.headers['x-request-id'], 2],
    ],
  );
  assert.ok(lines[1].path.length < 300, 'a long path is cut in the log');
});

test('an over-long request target gives 414', async () => {
  const res = await rawRequest(server.url, 'GET', '/things/' + 'a'.repeat(9000));
  assert.is(res.status, 414);
});

test('a request id sent by the client is echoed when well-formed, replaced otherwise', async () => {
  const good = await rawRequest(server.url, 'GET', '/things/1', { headers: { 'x-request-id': 'abc-123' } });
  assert.is(good.headers['x-request-id'], 'abc-123');
  const bad = await rawRequest(server.url, 'GET', '/things/1', { headers: { 'x-request-id': 'a b<script>' } });
  assert.is.not(bad.headers['x-request-id'], 'a b<script>');
});

test.run();
