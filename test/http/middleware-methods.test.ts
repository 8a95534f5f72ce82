// Service middleware that declares the methods it acts on (onlyFor) is left out of
// the chains of routes of other methods, and still runs for those methods' routes
// and for requests no route takes; a route without middleware runs its handler alone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../src/http/errors.js';
import type { Middleware } from '../../src/http/context.js';
import { sendOk } from '../../src/http/answer/index.js';
import { listen, type RunningServer } from '../../src/http/server.js';
import { rawRequest } from '../helpers/raw-http.js';
import { testApp } from '../helpers/test-app.js';

let server: RunningServer;
const seen: string[] = [];

const writesOnly: Middleware<any> = Object.assign(
  (ctx: Parameters<Middleware<any>>[0], next: () => Promise<void>) => {
    seen.push(`${ctx.method} ${ctx.path}`);
    if (ctx.req.headers['x-refuse'] === 'yes') throw new HttpError(403, 'FORBIDDEN', 'refused');
    return next();
  },
  { onlyFor: new Set(['POST', 'DELETE']) },
);

test.before(async () => {
  const handler = testApp({
    middleware: [writesOnly],
    routes: [
      { method: 'GET', path: '/thing', handler: (ctx) => sendOk(ctx, { read: true }) },
      { method: 'POST', path: '/thing', handler: (ctx) => sendOk(ctx, { made: true }, 201) },
      { method: 'GET', path: '/async', handler: async (ctx) => sendOk(ctx, { late: await Promise.resolve(1) }) },
      { method: 'GET', path: '/throws', handler: () => { throw new HttpError(409, 'CONFLICT', 'no'); } },
      { method: 'GET', path: '/rejects', handler: async () => { throw new HttpError(409, 'CONFLICT', 'no'); } },
    ],
  });
  server = await listen(handler, '127.0.0.1', 0);
});

test.after(async () => {
  await server.close(500);
});

test('middleware with onlyFor runs for its methods and for unrouted requests, not for other routes', async () => {
  const cases = [
    { what: 'GET route: left out', method: 'GET', path: '/thing', status: 200, ran: false },
    { what: 'HEAD of a GET route: left out', method: 'HEAD', path: '/thing', status: 200, ran: false },
    { what: 'POST route: runs', method: 'POST', path: '/thing', status: 201, ran: true },
    { what: 'POST route refused by it', method: 'POST', path: '/thing', headers: { 'x-refuse': 'yes' }, status: 403, ran: true },
    { what: 'no route (404): runs', method: 'GET', path: '/nowhere', status: 404, ran: true },
    { what: 'wrong method (405): runs', method: 'DELETE', path: '/thing', status: 405, ran: true },
  ];
  for (const c of cases) {
    seen.length = 0;
    const res = await rawRequest(server.url, c.method, c.path, { headers: c.headers ?? {} });
    assert.is(res.status, c.status, c.what);
    assert.is(seen.length, c.ran ? 1 : 0, c.what);
  }
});

test('a route without middleware: sync, async, thrown and rejected answers', async () => {
  const cases = [
    { what: 'sync', path: '/thing', status: 200, code: undefined },
    { what: 'async', path: '/async', status: 200, code: undefined },
    { what: 'throws', path: '/throws', status: 409, code: 'CONFLICT' },
    { what: 'rejects', path: '/rejects', status: 409, code: 'CONFLICT' },
  ];
  for (const c of cases) {
    const res = await rawRequest(server.url, 'GET', c.path);
    assert.is(res.status, c.status, c.what);
    assert.is(JSON.parse(res.body).code, c.code, c.what);
  }
});

test.run();
