// Session lookups are kept per session generation (src/services/site/auth/kept-sessions.ts,
// sql/008_generations.sql), so a logged-in request sends no query of its own
// for its session. Keeping must change nothing a caller can see: whatever ends a
// session or changes its user, committed through another process or plain SQL,
// takes effect on the very next request to a process that kept the lookup.
import { randomBytes } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPool } from '../../../src/db/pool.js';
import { hashToken } from '../../../src/services/site/auth/sessions.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { testUser, type TestUser } from '../../helpers/store-fixtures.js';
import { manualClock } from '../../helpers/time.js';

const sql = testSql();
const otherSql = createPool(process.env.TEST_DB_URL!);
let kept: TestServer;
let other: TestServer;
/** The kept site's clock for durations: a session's kept lifetime ends when a test moves it. */
const clock = manualClock();

interface Me {
  loggedIn: boolean;
  user: { username: string; avatar: string; admin: boolean } | null;
}

const me = async (site: TestServer, cookie: string): Promise<Me> => {
  const response = await fetch(site.url + '/apps/api/me', { headers: { cookie } });
  assert.is(response.status, 200);
  return (await response.json()) as Me;
};
/** Asked twice, so the process that answers has kept the lookup. */
const warm = async (site: TestServer, cookie: string): Promise<Me> => {
  await me(site, cookie);
  return me(site, cookie);
};
const adminListStatus = async (site: TestServer, cookie: string) =>
  (await fetch(site.url + '/apps/api/plugins?scope=admin', { headers: { cookie } })).status;

test.before(async () => {
  kept = await startTestSite({}, sql, undefined, clock.now);
  other = await startTestSite({}, otherSql);
});
test.after(async () => {
  await kept.close();
  await other.close();
  await otherSql.end({ timeout: 2 });
  await closeTestSql();
});

test('a kept session lookup answers without a query: a row deleted with triggers off goes unseen', async () => {
  // Only a write that bypasses the session generation (triggers disabled, as no
  // code of ours can) shows that the lookup was kept rather than sent again.
  const user = await testUser(sql, 'ks-unseen');
  assert.is((await warm(kept, user.cookie)).loggedIn, true);
  await sql.begin(async (tx) => {
    await tx.unsafe('set local session_replication_role = replica');
    await tx`delete from sessions where user_id = ${user.id}`;
  });
  assert.is((await me(kept, user.cookie)).loggedIn, true, 'kept');
  // Any session change (here another user's logout) moves the generation: the next request looks it up again.
  const other = await testUser(sql, 'ks-unseen-other');
  await sql`delete from sessions where user_id = ${other.id}`;
  assert.is((await me(kept, user.cookie)).loggedIn, false, 'looked up again after the generation moved');
});

const changes: Array<{ what: string; change(user: TestUser): Promise<unknown>; expect(after: Me, adminStatus: number): void }> = [
  {
    what: 'a logout through the other process',
    change: (user) => fetch(other.url + '/apps/auth/logout', { method: 'POST', headers: { cookie: user.cookie, origin: 'http://site.test' } }),
    expect: (after) => assert.is(after.loggedIn, false),
  },
  {
    what: 'every session of the user deleted (log out everywhere)',
    change: (user) => sql`delete from sessions where user_id = ${user.id}`,
    expect: (after) => assert.is(after.loggedIn, false),
  },
  {
    what: 'the session expired by SQL',
    change: (user) => sql`update sessions set expires_at = now() - interval '1 second' where user_id = ${user.id}`,
    expect: (after) => assert.is(after.loggedIn, false),
  },
  {
    what: 'the user deleted',
    change: (user) => sql`delete from users where id = ${user.id}`,
    expect: (after) => assert.is(after.loggedIn, false),
  },
  {
    what: 'administrator rights withdrawn',
    change: (user) => sql`update users set is_admin = false where id = ${user.id}`,
    expect: (after, adminStatus) => {
      assert.is(after.user?.admin, false);
      assert.is(adminStatus, 403);
    },
  },
  {
    what: 'the username changed',
    change: (user) => sql`update users set username = ${user.username + '-renamed'} where id = ${user.id}`,
    expect: (after) => assert.ok(after.user?.username.endsWith('-renamed'), JSON.stringify(after)),
  },
  {
    what: 'the avatar changed',
    change: (user) => sql`update users set avatar = 'https://avatars.example/new.png' where id = ${user.id}`,
    expect: (after) => assert.is(after.user?.avatar, 'https://avatars.example/new.png'),
  },
];

for (const [index, { what, change, expect }] of changes.entries()) {
  test(`kept session lookups follow at once: ${what}`, async () => {
    const user = await testUser(sql, `ks-change-${index}`, { admin: true });
    const before = await warm(kept, user.cookie);
    assert.is(before.loggedIn, true);
    assert.is(before.user?.admin, true);
    assert.is(await adminListStatus(kept, user.cookie), 200);
    await change(user);
    expect(await me(kept, user.cookie), await adminListStatus(kept, user.cookie));
  });
}

test('a kept session lookup ends with its session, with no write to tell', async () => {
  const user = await testUser(sql, 'ks-expiring');
  const token = randomBytes(32).toString('base64url');
  await sql`insert into sessions (token_hash, user_id, expires_at) values (${hashToken(token)}, ${user.id}, now() + interval '1 hour')`;
  const cookie = `sid=${token}`;
  assert.is((await warm(kept, cookie)).loggedIn, true);
  // The hour passes for both clocks: the site's, and PostgreSQL's for the row,
  // moved with triggers off so that the session generation does not move.
  clock.advance(60 * 60_000);
  await sql.begin(async (tx) => {
    await tx.unsafe('set local session_replication_role = replica');
    await tx`update sessions set expires_at = now() where token_hash = ${hashToken(token)}`;
  });
  const response = await fetch(kept.url + '/apps/api/me', { headers: { cookie } });
  assert.is(((await response.json()) as Me).loggedIn, false);
  assert.match(response.headers.get('set-cookie') ?? '', /^sid=;/, 'the dead cookie is cleared');
});

test('kept lookups are per token: users asking in turn each get their own', async () => {
  const users = await Promise.all(['ks-turn-a', 'ks-turn-b', 'ks-turn-c'].map((name, i) => testUser(sql, name, { admin: i === 0 })));
  for (let round = 0; round < 3; round++) {
    const answers = await Promise.all(users.map((user) => me(kept, user.cookie)));
    assert.equal(answers.map((answer) => [answer.user?.username, answer.user?.admin]), [['ks-turn-a', true], ['ks-turn-b', false], ['ks-turn-c', false]]);
  }
  const visitor = await fetch(kept.url + '/apps/api/me');
  assert.is(((await visitor.json()) as Me).loggedIn, false);
});

test.run();
