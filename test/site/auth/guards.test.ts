// Guards over a real server: the session is resolved by the guard a route lists
// (and only there), once per request; userRequired / adminRequired refuse with
// 401 / 403; routes that do not use the user never touch the database.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../../src/http/app.js';
import { sendOk } from '../../../src/http/answer/index.js';
import { listen, type RunningServer } from '../../../src/http/server.js';
import { createPool, type Sql } from '../../../src/db/pool.js';
import { createGuards } from '../../../src/services/site/auth/guards.js';
import type { SiteContext, SiteLocals } from '../../../src/services/site/context.js';
import { renderSiteError } from '../../../src/services/site/errors.js';
import { testSessionCookie } from '../../helpers/fake-idp.js';
import { closeTestSql, startTestSite, tempDir, testConfig, testLogger, testSql } from '../../helpers/servers.js';

test.after(() => closeTestSql());

/** Counts every query that goes through the pool (runNamed uses sql.unsafe). */
function countingSql(sql: Sql): { sql: Sql; count(): number } {
  let count = 0;
  const proxy = new Proxy(sql, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'unsafe' && typeof value === 'function') {
        return (...args: unknown[]) => {
          count++;
          return value.apply(target, args);
        };
      }
      return value;
    },
  });
  return { sql: proxy, count: () => count };
}

async function guardedServer(sql: Sql): Promise<RunningServer> {
  const deps = { config: testConfig(), sql, log: testLogger() };
  const guards = createGuards(deps);
  const who = (ctx: SiteContext) => sendOk(ctx, { user: ctx.locals.user?.username ?? null });
  const handler = createApp<SiteLocals>({
    name: 'site',
    log: testLogger(),
    trustProxy: false,
    createLocals: () => ({ user: null }),
    renderError: renderSiteError,
    routes: [
      { method: 'GET', path: '/open', handler: who },
      { method: 'GET', path: '/with-user', use: [guards.withUser], handler: who },
      { method: 'GET', path: '/user', use: [guards.userRequired], handler: who },
      { method: 'GET', path: '/admin', use: [guards.adminRequired], handler: who },
      { method: 'GET', path: '/stacked', use: [guards.withUser, guards.userRequired, createGuards(deps).adminRequired], handler: who },
    ],
  });
  return listen(handler, '127.0.0.1', 0);
}

test('guards: each route resolves the session its guard asks for, and refuses with the documented codes', async () => {
  const counting = countingSql(testSql());
  const server = await guardedServer(counting.sql);
  const user = await testSessionCookie(testSql(), 'guarded-user');
  const admin = await testSessionCookie(testSql(), 'guarded-admin', { admin: true });
  const cases = [
    { what: 'open route, cookie', path: '/open', cookie: user, status: 200, user: null, queries: 0 },
    { what: 'withUser, no cookie', path: '/with-user', cookie: undefined, status: 200, user: null, queries: 0 },
    { what: 'withUser, malformed cookie', path: '/with-user', cookie: 'sid=nope', status: 200, user: null, queries: 0 },
    { what: 'withUser, user', path: '/with-user', cookie: user, status: 200, user: 'guarded-user', queries: 1 },
    { what: 'userRequired, no cookie', path: '/user', cookie: undefined, status: 401, code: 'UNAUTHORIZED', queries: 0 },
    { what: 'userRequired, dead session', path: '/user', cookie: 'sid=' + 'A'.repeat(43), status: 401, code: 'UNAUTHORIZED', queries: 1 },
    { what: 'userRequired, user', path: '/user', cookie: user, status: 200, user: 'guarded-user', queries: 1 },
    { what: 'adminRequired, no cookie', path: '/admin', cookie: undefined, status: 401, code: 'UNAUTHORIZED', queries: 0 },
    { what: 'adminRequired, user', path: '/admin', cookie: user, status: 403, code: 'FORBIDDEN', queries: 1 },
    { what: 'adminRequired, admin', path: '/admin', cookie: admin, status: 200, user: 'guarded-admin', queries: 1 },
    { what: 'three stacked guards look up once', path: '/stacked', cookie: admin, status: 200, user: 'guarded-admin', queries: 1 },
  ];
  try {
    for (const c of cases) {
      const before = counting.count();
      const response = await fetch(server.url + c.path, { headers: c.cookie ? { cookie: c.cookie } : {} });
      const body = (await response.json()) as Record<string, unknown>;
      assert.is(response.status, c.status, c.what);
      if (c.code) assert.is(body.code, c.code, c.what);
      else assert.is(body.user, c.user, c.what);
      assert.is(counting.count() - before, c.queries, `${c.what}: queries`);
    }
  } finally {
    await server.close(500);
  }
});

test('guards: a cookie that names no live session is cleared', async () => {
  const server = await guardedServer(testSql());
  try {
    const response = await fetch(server.url + '/with-user', { headers: { cookie: 'sid=' + 'B'.repeat(43) } });
    assert.is(response.status, 200);
    assert.match(response.headers.get('set-cookie') ?? '', /^sid=; Max-Age=0;/);
  } finally {
    await server.close(500);
  }
});

test('regression: with PostgreSQL unreachable, /api/info and /api/fastdownload with a session cookie answer 200', async () => {
  const launcherConfig = join(tempDir(), 'launcher.json');
  writeFileSync(launcherConfig, JSON.stringify({ latestVersion: '1.0.0', fastdownload: { enabled: true, versions: [] } }));
  // Nothing listens on port 1: any query would fail.
  const dead = createPool('postgres://nobody:nothing@127.0.0.1:1/none');
  const site = await startTestSite({ LAUNCHER_CONFIG: launcherConfig }, dead);
  const cookie = await testSessionCookie(testSql(), 'offline-user');
  try {
    for (const path of ['/api/info', '/api/fastdownload', '/healthz']) {
      const response = await fetch(site.url + path, { headers: { cookie } });
      assert.is(response.status, 200, path);
      assert.is(response.headers.get('set-cookie'), null, `${path} leaves the session cookie alone`);
    }
    assert.is((await fetch(site.url + '/apps/api/me', { headers: { cookie } })).status >= 500, true, 'a route that reads the user does need the database');
  } finally {
    await site.close();
    await dead.end({ timeout: 1 });
  }
});

test.run();
