// The rate limiter every site process shares (src/db/shared-rate-limiter.ts): counts,
// windows, refunds, bounded keys, the purge, and atomicity across two pools.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPool } from '../../src/db/pool.js';
import { runNamed } from '../../src/db/queries.js';
import { createSharedRateLimiter, MAX_KEY_LENGTH, storedKey } from '../../src/db/shared-rate-limiter.js';
import { closeTestSql, testSql } from '../helpers/servers.js';

const MINUTE = 60_000;

test.after(() => closeTestSql());

test('allows `limit` hits per window, then refuses with Retry-After; keys and limiters are independent', async () => {
  const limit = createSharedRateLimiter(testSql(), { name: 'test:basic', limit: 3, windowMs: MINUTE });
  const first = await limit.hit('a');
  assert.equal(first, { allowed: true, remaining: 2, retryAfterSeconds: 60 });
  await limit.hit('a');
  assert.is((await limit.hit('a')).remaining, 0);
  const refused = await limit.hit('a');
  assert.is(refused.allowed, false);
  assert.is(refused.remaining, 0);
  assert.ok(refused.retryAfterSeconds >= 59 && refused.retryAfterSeconds <= 60, String(refused.retryAfterSeconds));
  assert.is((await limit.peek('a')).allowed, false);
  assert.equal(await limit.peek('b'), { allowed: true, remaining: 3, retryAfterSeconds: 60 }, 'keys are independent');
  const other = createSharedRateLimiter(testSql(), { name: 'test:other', limit: 3, windowMs: MINUTE });
  assert.ok((await other.hit('a')).allowed, 'limiters with other names do not share counts');
});

test('a refused hit is not counted: the key stays at limit + 1', async () => {
  const limit = createSharedRateLimiter(testSql(), { name: 'test:cap', limit: 2, windowMs: MINUTE });
  for (let i = 0; i < 10; i++) await limit.hit('k');
  const [row] = await testSql()`select hits from rate_limits where limiter = 'test:cap' and key = 'k'`;
  assert.is(row!.hits, 3);
});

test('a window ends: the key is allowed again', async () => {
  const limit = createSharedRateLimiter(testSql(), { name: 'test:window', limit: 1, windowMs: MINUTE });
  assert.ok((await limit.hit('k')).allowed);
  assert.is((await limit.hit('k')).allowed, false);
  // The window is timed by PostgreSQL's clock (rate-limit/hit.sql): its end is moved
  // to now rather than waited for.
  await testSql()`update rate_limits set resets_at = now() where limiter = 'test:window' and key = 'k'`;
  assert.ok((await limit.peek('k')).allowed);
  assert.equal(await limit.hit('k'), { allowed: true, remaining: 0, retryAfterSeconds: 60 }, 'a new window, whole');
});

test('refund takes back one hit; reset forgets the key', async () => {
  const limit = createSharedRateLimiter(testSql(), { name: 'test:refund', limit: 2, windowMs: MINUTE });
  await limit.hit('a');
  await limit.hit('a');
  assert.is((await limit.peek('a')).allowed, false);
  await limit.refund('a');
  assert.is((await limit.peek('a')).remaining, 1);
  await limit.hit('a');
  await limit.reset('a');
  assert.is((await limit.peek('a')).remaining, 2);
  await limit.refund('never-seen');
  assert.is((await limit.peek('never-seen')).remaining, 2);
});

test('keys are bounded: long keys and keys PostgreSQL text cannot hold are stored hashed', async () => {
  const cases = [
    { what: 'short key kept', key: '203.0.113.9', hashed: false },
    { what: 'longest plain key kept', key: 'k'.repeat(MAX_KEY_LENGTH), hashed: false },
    { what: 'over-long key hashed', key: 'k'.repeat(MAX_KEY_LENGTH + 1), hashed: true },
    { what: 'huge key hashed', key: 'é'.repeat(100_000), hashed: true },
    { what: 'NUL hashed', key: 'a\u0000b', hashed: true },
    { what: 'empty key hashed', key: '', hashed: true },
  ];
  const limit = createSharedRateLimiter(testSql(), { name: 'test:keys', limit: 1, windowMs: MINUTE });
  for (const c of cases) {
    const stored = storedKey(c.key);
    assert.is(stored === c.key, !c.hashed, c.what);
    assert.ok(stored.length <= MAX_KEY_LENGTH, c.what);
    assert.ok((await limit.hit(c.key)).allowed, c.what);
    assert.is((await limit.hit(c.key)).allowed, false, c.what);
  }
});

test('rejects nonsense options at construction', () => {
  const cases = [
    { what: 'zero limit', options: { name: 'x', limit: 0, windowMs: 1 } },
    { what: 'fractional limit', options: { name: 'x', limit: 1.5, windowMs: 1 } },
    { what: 'zero window', options: { name: 'x', limit: 1, windowMs: 0 } },
    { what: 'window beyond integer', options: { name: 'x', limit: 1, windowMs: 2 ** 31 } },
    { what: 'empty name', options: { name: '', limit: 1, windowMs: 1 } },
    { what: 'name with spaces', options: { name: 'a b', limit: 1, windowMs: 1 } },
    { what: 'over-long name', options: { name: 'n'.repeat(41), limit: 1, windowMs: 1 } },
  ];
  for (const c of cases) assert.throws(() => createSharedRateLimiter(testSql(), c.options), c.what);
});

test('the purge deletes expired windows only, a bounded batch at a time', async () => {
  const sql = testSql();
  await sql`delete from rate_limits where limiter = 'test:purge'`;
  await sql`insert into rate_limits (limiter, key, hits, resets_at)
            select 'test:purge', 'old-' || i, 1, now() - interval '1 minute' from generate_series(1, 5) i`;
  await sql`insert into rate_limits (limiter, key, hits, resets_at) values ('test:purge', 'live', 1, now() + interval '1 minute')`;
  await runNamed(sql, 'rate-limit/purge', { batch: 3 });
  const count = async () => (await sql`select count(*)::int as n from rate_limits where limiter = 'test:purge'`)[0]!.n;
  assert.is(await count(), 3);
  await runNamed(sql, 'rate-limit/purge', { batch: 100 });
  assert.is(await count(), 1);
});

test('regression: concurrent hits through two pools never exceed the limit', async () => {
  const other = createPool(process.env.TEST_DB_URL!);
  try {
    const options = { name: 'test:concurrent', limit: 10, windowMs: MINUTE };
    const limiters = [createSharedRateLimiter(testSql(), options), createSharedRateLimiter(other, options)];
    const decisions = await Promise.all(Array.from({ length: 100 }, (_, i) => limiters[i % 2]!.hit('same-key')));
    assert.is(decisions.filter((decision) => decision.allowed).length, 10);
    const remaining = decisions.filter((decision) => decision.allowed).map((decision) => decision.remaining).sort((a, b) => a - b);
    assert.equal(remaining, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'each allowed hit saw its own count');
  } finally {
    await other.end({ timeout: 1 });
  }
});

test.run();
