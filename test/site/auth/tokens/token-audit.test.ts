// Token creation and revocation are in the audit log: who, what, when, the
// token's id, name, scopes, prefix and expiry, and never its secret; a refused
// creation records nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../../src/db/pool.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../../helpers/servers.js';
import { testUser, type TestUser } from '../../../helpers/store-fixtures.js';
import { tokenClient } from './token-client.js';

let site: TestServer;
let call: ReturnType<typeof tokenClient>;
let sql: Sql;
let admin: TestUser;

test.before(async () => {
  sql = testSql();
  site = await startTestSite({}, sql, { start: false });
  call = tokenClient(site.url);
  admin = await testUser(sql, 'ta-admin', { admin: true });
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

const entriesOf = async (user: string) => {
  const answer = await call('GET', `/apps/api/audit?user=${user}`, { cookie: admin.cookie });
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.entries;
};

test('creating and revoking a token are audited, without the secret', async () => {
  const user = await testUser(sql, 'ta-owner');
  const before = Date.now();
  const made = await call('POST', '/apps/api/tokens', { cookie: user.cookie }, { name: 'CI deploy', scopes: ['plugins:write'], expiresInDays: 30 });
  assert.is(made.status, 201, JSON.stringify(made.body));
  let entries = await entriesOf('ta-owner');
  assert.is(entries.length, 1);
  const [created] = entries;
  assert.equal([created.actor, created.action, created.target], ['ta-owner', 'token.created', { type: 'token', user: 'ta-owner' }]);
  assert.equal(created.before, {});
  assert.equal(created.after, { id: made.body.token.id, name: 'CI deploy', scopes: ['plugins:write'], prefix: made.body.token.prefix, expiresAt: made.body.token.expiresAt });
  assert.ok(Date.parse(created.at) >= before - 1000);
  const stored = JSON.stringify(await sql`select * from audit_log`);
  assert.not.ok(stored.includes(made.body.secret), 'the secret is nowhere in the audit log');

  assert.is((await call('DELETE', `/apps/api/tokens/${made.body.token.id}`, { cookie: user.cookie })).status, 200);
  entries = await entriesOf('ta-owner');
  assert.equal(entries.map((e: any) => e.action), ['token.revoked', 'token.created']);
  assert.equal(entries[0].before, created.after);
  assert.equal(entries[0].after, {});
});

test('a refused creation or revocation records nothing', async () => {
  const user = await testUser(sql, 'ta-refused');
  assert.is((await call('POST', '/apps/api/tokens', { cookie: user.cookie }, { name: '', scopes: ['plugins:write'] })).status, 400);
  assert.is((await call('DELETE', '/apps/api/tokens/999999', { cookie: user.cookie })).status, 404);
  assert.is((await entriesOf('ta-refused')).length, 0);
});

test.run();
