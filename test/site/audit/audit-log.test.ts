// The audit log: every administrator action (review, update review, edit of
// another's plugin, featured) recorded with who, what, when and before/after of
// the fields it changed, in the action's transaction; append-only; read by
// administrators only, filtered by plugin or user, paged.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../src/db/pool.js';
import { insertPlugin, testUser, type TestUser } from '../../helpers/store-fixtures.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { storeClient, type StoreClient } from '../store/store-client.js';

let site: TestServer;
let client: StoreClient;
let sql: Sql;
let author: TestUser;
let admin: TestUser;
let admin2: TestUser;
let other: TestUser;

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

test.before(async () => {
  sql = testSql();
  site = await startTestSite();
  client = storeClient(site.url);
  author = await testUser(sql, 'audit-author');
  other = await testUser(sql, 'audit-other');
  admin = await testUser(sql, 'audit-admin', { admin: true });
  admin2 = await testUser(sql, 'audit-admin2', { admin: true });
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

const review = (id: string, body: unknown, user = admin) => client.post(`/apps/api/plugins/${id}/review`, body, { cookie: user.cookie });
const edit = (id: string, body: unknown, user: TestUser) => client.patch(`/apps/api/plugins/${id}`, body, { cookie: user.cookie });
const audit = (query: string, user: TestUser | undefined = admin) => client.get(`/apps/api/audit${query}`, user ? { cookie: user.cookie } : {});

async function entriesOf(plugin: string) {
  const answer = await audit(`?plugin=${plugin}`);
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.entries as Array<Record<string, any>>;
}

test('a review is recorded: who, what, when, and the fields it changed before and after', async () => {
  await insertPlugin(sql, 'audit-review', author, 'pending');
  assert.is((await review('audit-review', { action: 'reject', reason: 'Broken download' })).status, 200);
  assert.is((await review('audit-review', { action: 'approve' })).status, 200);
  const answer = await audit('?plugin=audit-review');
  assert.is(answer.body.success, true);
  assert.is(answer.body.total, 2);
  const [approve, reject] = answer.body.entries;
  assert.equal(Object.keys(reject).sort(), ['action', 'actor', 'after', 'at', 'before', 'id', 'target']);
  assert.is(reject.actor, 'audit-admin');
  assert.is(reject.action, 'review.reject');
  assert.equal(reject.target, { type: 'plugin', plugin: 'audit-review' });
  assert.equal(reject.before, { status: 'pending', reviewAction: null, reviewReason: null });
  assert.equal(reject.after, { status: 'rejected', reviewAction: 'reject', reviewReason: 'Broken download' });
  assert.match(reject.at, ISO);
  assert.is(approve.action, 'review.approve');
  assert.equal(approve.before, { status: 'rejected', reviewAction: 'reject', reviewReason: 'Broken download' });
  assert.equal(approve.after, { status: 'approved', reviewAction: 'approve', reviewReason: null });
  assert.ok(approve.id > reject.id, 'newest first');
});

test("an administrator's edit of another user's plugin records only the changed fields", async () => {
  await insertPlugin(sql, 'audit-edit', author, 'approved', { name: 'Old name', author: 'Someone' });
  assert.is((await edit('audit-edit', { name: 'New name', author: 'Someone', version: '1.0.0' }, admin)).status, 200);
  const [entry] = await entriesOf('audit-edit');
  assert.is(entry!.action, 'plugin.edit');
  assert.equal(entry!.before, { name: 'Old name' });
  assert.equal(entry!.after, { name: 'New name' });
});

test('featured is recorded as plugin.featured, also on an administrator\'s own plugin', async () => {
  await insertPlugin(sql, 'audit-featured', admin, 'approved');
  assert.is((await edit('audit-featured', { featured: true }, admin)).status, 200);
  const [entry] = await entriesOf('audit-featured');
  assert.is(entry!.action, 'plugin.featured');
  assert.equal([entry!.before, entry!.after], [{ featured: false }, { featured: true }]);
});

const notRecorded = [
  { what: "an author's edit of their own plugin", owner: () => author, editor: () => author, body: { name: 'Mine' } },
  { what: "an administrator's edit of their own plugin (featured untouched)", owner: () => admin, editor: () => admin, body: { name: 'Mine' } },
  { what: 'an edit that changes nothing', owner: () => author, editor: () => admin, body: { version: '1.0.0' } },
];
for (const row of notRecorded) {
  test(`not an administrator action, not recorded: ${row.what}`, async () => {
    const id = `audit-none-${notRecorded.indexOf(row)}`;
    await insertPlugin(sql, id, row.owner(), 'pending');
    assert.is((await edit(id, row.body, row.editor())).status, 200);
    assert.equal(await entriesOf(id), []);
  });
}

test("a pending update's review is update.approve with the fields it applied", async () => {
  await insertPlugin(sql, 'audit-update', author, 'approved', { description: 'Before' });
  assert.is((await edit('audit-update', { description: 'After' }, author)).status, 200);
  assert.is((await review('audit-update', { action: 'approve' }, admin2)).status, 200);
  const [entry] = await entriesOf('audit-update');
  assert.is(entry!.action, 'update.approve');
  assert.is(entry!.actor, 'audit-admin2');
  assert.is(entry!.before.description, 'Before');
  assert.is(entry!.after.description, 'After');
  assert.equal([entry!.before.pendingUpdate, entry!.after.pendingUpdate], [true, false]);
});

test('a refused review (409) leaves no entry: the entry commits with its action or not at all', async () => {
  await insertPlugin(sql, 'audit-409', author, 'approved');
  assert.is((await review('audit-409', { action: 'approve' })).status, 409);
  assert.equal(await entriesOf('audit-409'), []);
});

const changes = [
  { what: 'UPDATE', statement: (s: Sql) => s`update audit_log set action = 'forged'` },
  { what: 'DELETE', statement: (s: Sql) => s`delete from audit_log` },
  { what: 'TRUNCATE', statement: (s: Sql) => s`truncate audit_log` },
];
for (const row of changes) {
  test(`the table is append-only: ${row.what} is refused, even to its owner`, async () => {
    const [before] = await sql`select count(*)::int as n from audit_log`;
    assert.ok(before!.n > 0, 'entries exist');
    try {
      await row.statement(sql);
      assert.unreachable(`${row.what} went through`);
    } catch (error) {
      assert.is((error as { code?: string }).code, '42501', String(error));
    }
    const [after] = await sql`select count(*)::int as n, count(*) filter (where action = 'forged')::int as forged from audit_log`;
    assert.equal(after, { n: before!.n, forged: 0 });
  });
}

test('filters: plugin (any case), user, both; paging with total', async () => {
  for (const id of ['audit-page-a', 'audit-page-b']) await insertPlugin(sql, id, author, 'pending');
  await review('audit-page-a', { action: 'approve' }, admin);
  await review('audit-page-a', { action: 'reject' }, admin2);
  await review('audit-page-b', { action: 'approve' }, admin2);

  const byPlugin = await audit('?plugin=AUDIT-PAGE-A');
  assert.is(byPlugin.body.total, 2);
  const byUser = await audit('?user=AUDIT-ADMIN2');
  assert.ok(byUser.body.entries.every((entry: any) => entry.actor === 'audit-admin2'));
  const both = await audit('?plugin=audit-page-a&user=audit-admin2');
  assert.is(both.body.total, 1);
  assert.is(both.body.entries[0].action, 'review.reject');

  const all = await audit('?limit=200');
  const firstPage = await audit('?limit=2&offset=0');
  const secondPage = await audit('?limit=2&offset=2');
  assert.is(firstPage.body.total, all.body.total);
  assert.equal([...firstPage.body.entries, ...secondPage.body.entries].map((e: any) => e.id), all.body.entries.slice(0, 4).map((e: any) => e.id));
  const past = await audit(`?offset=${all.body.total}`);
  assert.equal([past.body.entries, past.body.total], [[], all.body.total]);
  const nobody = await audit('?user=audit-no-such-user');
  assert.equal([nobody.body.entries, nobody.body.total], [[], 0]);
});

const access = [
  { what: 'visitor', user: undefined, query: '', status: 401, code: 'UNAUTHORIZED' },
  { what: 'a user who is not an administrator', user: 'other', query: '', status: 403, code: 'FORBIDDEN' },
  { what: 'limit 0', user: 'admin', query: '?limit=0', status: 400, code: 'BAD_REQUEST' },
  { what: 'limit over the maximum', user: 'admin', query: '?limit=201', status: 400, code: 'BAD_REQUEST' },
  { what: 'a negative offset', user: 'admin', query: '?offset=-1', status: 400, code: 'BAD_REQUEST' },
  { what: 'plugin twice', user: 'admin', query: '?plugin=a&plugin=b', status: 400, code: 'BAD_REQUEST' },
] as const;
for (const row of access) {
  test(`GET /apps/api/audit as ${row.what} -> ${row.status}`, async () => {
    const user = row.user === undefined ? undefined : row.user === 'admin' ? admin : other;
    const answer = await client.get(`/apps/api/audit${row.query}`, user ? { cookie: user.cookie } : {});
    assert.is(answer.status, row.status);
    assert.is(answer.body.code, row.code);
  });
}

test.run();
