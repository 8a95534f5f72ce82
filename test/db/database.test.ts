// PostgreSQL: migrations under concurrency, waiting at start, and recovery after
// the database goes away (through a TCP proxy the test can cut).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../src/http/app.js';
import { silentLogger } from '../../src/lib/log.js';
import { sendOk } from '../../src/http/answer/index.js';
import { listen } from '../../src/http/server.js';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import { createPool, databaseIsReady, waitForDatabase } from '../../src/db/pool.js';
import { healthHandlers } from '../../src/http/health.js';
import { renderSiteError } from '../../src/services/site/errors.js';
import { startPgProxy } from '../helpers/pg-proxy.js';
import { closeTestSql, testSql } from '../helpers/servers.js';

test.after(() => closeTestSql());

test('migrations: two runners at once apply each file exactly once', async () => {
  const sql = testSql();
  const name = `race_${process.pid}`;
  const migrations = [
    ...readMigrations(),
    { version: 900, name, text: `create table ${name} (id int); insert into ${name} values (1);`, checksum: 'x' },
  ];
  const other = createPool(process.env.TEST_DB_URL!);
  try {
    const counts = await Promise.all([migrate(sql, silentLogger, migrations), migrate(other, silentLogger, migrations)]);
    assert.equal(counts.sort(), [0, 1]);
    const rows = await sql.unsafe(`select count(*)::int as n from ${name}`);
    assert.is(rows[0]!.n, 1);
    assert.is(await migrate(sql, silentLogger, migrations), 0);
  } finally {
    await sql.unsafe(`drop table if exists ${name}; delete from schema_migrations where version = 900`);
    await other.end();
  }
});

test('migrations: a failing file is rolled back and named', async () => {
  const sql = testSql();
  const bad = { version: 901, name: 'broken', text: 'create table half_done (id int); select * from no_such_table;', checksum: 'y' };
  try {
    await migrate(sql, silentLogger, [...readMigrations(), bad]);
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.match(String(error), /901_broken/);
  }
  const rows = await sql`select to_regclass('half_done') as t`;
  assert.is(rows[0]!.t, null);
  const recorded = await sql`select 1 from schema_migrations where version = 901`;
  assert.is(recorded.length, 0);
});

test('waitForDatabase gives up with one clear error', async () => {
  const dead = createPool('postgres://x:y@127.0.0.1:1/none');
  try {
    await waitForDatabase(dead, silentLogger, 1200);
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.match(String(error), /not reachable after/);
  } finally {
    await dead.end({ timeout: 1 });
  }
});

test('losing PostgreSQL: 500 INTERNAL on database routes, 503 on /readyz, then recovery', async () => {
  const proxy = await startPgProxy(process.env.TEST_DB_URL!);
  const sql = createPool(proxy.url);
  const handler = createApp<any>({
    name: 'db-test',
    log: silentLogger,
    trustProxy: false,
    createLocals: () => ({}),
    renderError: renderSiteError,
    routes: [
      { method: 'GET', path: '/healthz', handler: healthHandlers(() => databaseIsReady(sql, 1000)).live },
      { method: 'GET', path: '/readyz', handler: healthHandlers(() => databaseIsReady(sql, 1000)).ready },
      { method: 'GET', path: '/count', handler: async (ctx) => sendOk(ctx, { n: (await sql`select 1 as n`)[0]!.n }) },
    ],
  });
  const server = await listen(handler, '127.0.0.1', 0);
  try {
    assert.is((await fetch(server.url + '/readyz')).status, 200);
    assert.is((await fetch(server.url + '/count')).status, 200);

    await proxy.stop();
    const down = await fetch(server.url + '/count');
    assert.is(down.status, 500);
    const body = await down.json();
    assert.is(body.code, 'INTERNAL');
    assert.not.match(JSON.stringify(body), /ECONN|select|postgres/i);
    assert.is((await fetch(server.url + '/readyz')).status, 503);
    assert.is((await fetch(server.url + '/healthz')).status, 200);

    await proxy.start();
    let recovered = false;
    for (let i = 0; i < 50 && !recovered; i++) {
      recovered = (await fetch(server.url + '/count')).status === 200;
      if (!recovered) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(recovered, 'the site did not recover by itself');
    assert.is((await fetch(server.url + '/readyz')).status, 200);
  } finally {
    await server.close(500);
    await sql.end({ timeout: 1 });
    await proxy.stop().catch(() => {});
  }
});

test.run();
