// The update check's hit that PostgreSQL could not count (src/services/site/store/versions/updates-route.ts):
// let by only while the database is known unreachable (the breaker is open);
// a 503 of a slow database the breaker only suspects is thrown on.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { breakerOf } from '../../../../src/db/breaker.js';
import { databaseUnreachable } from '../../../../src/db/deadline.js';
import { createPool } from '../../../../src/db/pool.js';
import { runNamed } from '../../../../src/db/queries.js';
import { HttpError } from '../../../../src/http/errors.js';
import { uncountedWhileUnreachable } from '../../../../src/services/site/store/versions/updates-route.js';
import { startPgProxy } from '../../../helpers/pg-proxy.js';

/** A query's timeout as the deadline maps it: 503 UNAVAILABLE with Retry-After. */
const timedOut = () => databaseUnreachable();
const generation = (sql: ReturnType<typeof createPool>) => runNamed(sql, 'store/generation', { viewer_id: null });

// Defect: any 503 from counting the hit (a timeout on a slow database too) let the
// caller by uncounted, so one address got unlimited update checks with distinct
// bodies, each a build, while PostgreSQL was slow.
test('a hit not counted: 503 UNAVAILABLE with Retry-After while the breaker is closed, let by while it is open', async () => {
  const proxy = await startPgProxy(process.env.TEST_DB_URL!);
  const sql = createPool(proxy.url);
  const decide = uncountedWhileUnreachable(sql);
  try {
    await generation(sql);
    assert.is(breakerOf(sql)!.downSince, 0);
    const slow = timedOut();
    assert.throws(() => decide(slow), (error: unknown) => error === slow && error instanceof HttpError && error.code === 'UNAVAILABLE' && error.headers?.['Retry-After'] !== undefined);
    const bug = new TypeError('a bug');
    assert.throws(() => decide(bug), (error: unknown) => error === bug);

    await proxy.stop();
    await generation(sql).catch(() => {});
    assert.ok(breakerOf(sql)!.downSince > 0, 'a refused connection opens the breaker');
    assert.is(decide(timedOut()).allowed, true);
    assert.throws(() => decide(bug), (error: unknown) => error === bug);
  } finally {
    await sql.end({ timeout: 1 });
    await proxy.stop().catch(() => {});
  }
});

test.run();
