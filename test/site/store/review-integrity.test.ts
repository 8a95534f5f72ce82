// Review integrity (issue 17): what an administrator approves is what goes live.
// Every record its author or an administrator sees carries `revision`; a review that
// names a revision no longer current is refused (409, nothing changed); a plugin
// taken down loses its pending update, which no later approval can apply; the
// review action "unlist" takes an approved plugin down.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../src/db/pool.js';
import type { TestUser } from '../../helpers/store-fixtures.js';
import type { TestServer } from '../../helpers/servers.js';
import { as, startStoreSite } from '../../helpers/store-site.js';
import { waitFor } from '../../helpers/time.js';
import { newPlugin, storeClient, type StoreClient } from './store-client.js';

let site: TestServer, client: StoreClient, sql: Sql;
/** A second site process on the same database (started here, not mid-test: a pause idles the first's connections). */
let second: TestServer;
let author: TestUser, other: TestUser, admin: TestUser, closeStore: () => Promise<void>;

test.before(async () => {
  ({ sites: [site, second], client, sql, author, other, admin, close: closeStore } = await startStoreSite('rev', { sites: 2 }));
});
test.after(() => closeStore());

const GOOD = 'https://downloads.example.com/good.zip';
const EVIL = 'https://downloads.example.com/evil.zip';
const detail = (id: string, user?: TestUser) => client.get(`/apps/api/plugins/${id}`, user ? as(user) : {});
const review = (id: string, body: Record<string, unknown>, user = admin) => client.post(`/apps/api/plugins/${id}/review`, body, as(user));
const edit = (id: string, fields: Record<string, unknown>, user = author) => client.patch(`/apps/api/plugins/${id}`, fields, as(user));
const queue = async () => (await client.get('/apps/api/plugins?scope=admin&update=pending&limit=500', as(admin))).body.plugins as any[];

async function created(id: string, fields: Record<string, unknown> = {}): Promise<any> {
  const answer = await client.post('/apps/api/plugins', newPlugin(id, fields), as(author));
  assert.is(answer.status, 201, JSON.stringify(answer.body));
  return answer.body.plugin;
}

async function approved(id: string, fields: Record<string, unknown> = {}): Promise<any> {
  await created(id, fields);
  const answer = await review(id, { action: 'approve' });
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.plugin;
}

function assertConflict(answer: { status: number; body: any }): void {
  assert.is(answer.status, 409, JSON.stringify(answer.body));
  assert.is(answer.body.success, false);
  assert.is(answer.body.code, 'CONFLICT');
  assert.is(answer.body.field, 'revision');
}

// --- The defects, each named -------------------------------------------------

test('an approval applies whatever is pending at that moment, not what the administrator looked at', async () => {
  await approved('rev-swap', { download: 'https://downloads.example.com/v1.zip', sha256: 'a'.repeat(64) });
  assert.is((await edit('rev-swap', { download: GOOD, sha256: 'b'.repeat(64) })).status, 200);
  const seen = (await queue()).find((plugin) => plugin.id === 'rev-swap');
  assert.is(seen.pendingUpdate.download, GOOD);
  // The author swaps the ZIP while the administrator reads.
  assert.is((await edit('rev-swap', { download: EVIL, sha256: null })).status, 200);

  assertConflict(await review('rev-swap', { action: 'approve', revision: seen.revision }));
  const link = await client.get('/apps/api/plugins/rev-swap/install-link');
  assert.is(link.body.download, 'https://downloads.example.com/v1.zip', 'the live ZIP is unchanged');
  const now = (await detail('rev-swap', admin)).body.plugin;
  assert.is(now.pendingUpdate.download, EVIL, 'the update still waits, as it is now');
  assert.is(now.review.action, 'approve', 'no review was recorded');

  // Reviewed as it is now, it goes through.
  const fresh = await review('rev-swap', { action: 'approve', revision: now.revision });
  assert.is(fresh.status, 200, JSON.stringify(fresh.body));
  assert.is(fresh.body.plugin.download, EVIL);
});

test('an approval of a new plugin applies whatever was submitted at that moment, not what the administrator looked at', async () => {
  const seen = await created('rev-new-swap', { download: GOOD });
  assert.is((await edit('rev-new-swap', { download: EVIL })).status, 200);
  assertConflict(await review('rev-new-swap', { action: 'approve', revision: seen.revision }));
  const now = (await detail('rev-new-swap', admin)).body.plugin;
  assert.equal([now.status, now.download], ['pending', EVIL]);
  assert.is((await client.get('/apps/api/plugins/rev-new-swap')).status, 404, 'still hidden from visitors');
});

test('an approval naming a revision waits for an edit in progress and is refused after it (compared under the row lock)', async () => {
  const plugin = await approved('rev-race');
  assert.is((await edit('rev-race', { download: GOOD })).status, 200);
  const { revision } = (await detail('rev-race', admin)).body.plugin;
  let reviewed: Promise<{ status: number; body: any }> | undefined;
  await sql.begin(async (tx) => {
    // What an author's edit does: lock the plugin, then change its pending update.
    await tx`select id from plugins where id = ${plugin.id} for update`;
    await tx`update plugin_pending_updates set download = ${EVIL} where plugin_id = ${plugin.id}`;
    reviewed = review('rev-race', { action: 'approve', revision });
    await waitFor('the approval to wait for the plugin\'s lock', async () =>
      (await sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)[0]!.n > 0);
  });
  assertConflict(await reviewed!);
  assert.is((await client.get('/apps/api/plugins/rev-race/install-link')).body.download, newPlugin('rev-race').download);
});

test('unlisting leaves the pending update in place, and a later approval applies it unseen', async () => {
  await approved('rev-unlisted');
  assert.is((await edit('rev-unlisted', { download: EVIL, version: '6.6.6' })).status, 200);
  const filed = await client.post('/apps/api/reports', { target: { type: 'plugin', plugin: 'rev-unlisted' }, reason: 'malware' }, as(other));
  assert.is(filed.status, 201, JSON.stringify(filed.body));
  const resolved = await client.post(`/apps/api/reports/${filed.body.report.id}/resolve`, { action: 'unlist', reason: 'Malware' }, as(admin));
  assert.is(resolved.status, 200, JSON.stringify(resolved.body));
  const unlisted = (await detail('rev-unlisted', admin)).body.plugin;
  assert.is(unlisted.status, 'rejected');
  assert.is(unlisted.pendingUpdate, null, 'the update went with the listing');
  assert.not.ok((await queue()).some((plugin) => plugin.id === 'rev-unlisted'));

  // Relisted later: what goes live is what the administrator saw, not the update.
  const relisted = await review('rev-unlisted', { action: 'approve', revision: unlisted.revision });
  assert.is(relisted.status, 200, JSON.stringify(relisted.body));
  assert.equal([relisted.body.plugin.status, relisted.body.plugin.version, relisted.body.plugin.download], ['approved', '1.0.0', newPlugin('rev-unlisted').download]);
});

test('the review queue shows pending updates only for approved plugins; approving such a plugin never applies its update', async () => {
  // A state no API path reaches any more (an update left beside a plugin taken
  // down before this fix), written directly.
  await approved('rev-stale');
  assert.is((await review('rev-stale', { action: 'reject', reason: 'Down' })).status, 200);
  await sql`insert into plugin_pending_updates (plugin_id, changed, download) values ('rev-stale', '{download}', ${EVIL})`;
  assert.not.ok((await queue()).some((plugin) => plugin.id === 'rev-stale'));
  const approval = await review('rev-stale', { action: 'approve' });
  assert.is(approval.status, 200, JSON.stringify(approval.body));
  assert.is(approval.body.plugin.download, newPlugin('rev-stale').download);
  assert.is(approval.body.plugin.pendingUpdate, null);
});

test('a rejection of an approved plugin with a pending update discards the update and keeps the plugin approved', async () => {
  await approved('rev-reject-update');
  assert.is((await edit('rev-reject-update', { download: EVIL })).status, 200);
  const { revision } = (await detail('rev-reject-update', admin)).body.plugin;
  const answer = await review('rev-reject-update', { action: 'reject', reason: 'No', revision });
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  assert.equal([answer.body.plugin.status, answer.body.plugin.pendingUpdate], ['approved', null]);
  assert.is((await client.get('/apps/api/plugins/rev-reject-update')).status, 200, 'still listed');
});

// --- revision ----------------------------------------------------------------

test('revision: in every record its author or an administrator sees (list, detail, queue, write answers)', async () => {
  const posted = await created('rev-shape');
  assert.type(posted.revision, 'string');
  const reviewed = (await review('rev-shape', { action: 'approve', revision: posted.revision })).body.plugin;
  const patched = (await edit('rev-shape', { version: '2.0.0' })).body.plugin;
  const answers = [
    reviewed,
    patched,
    (await detail('rev-shape', author)).body.plugin,
    (await detail('rev-shape', admin)).body.plugin,
    (await client.get('/apps/api/plugins?scope=mine&limit=500', as(author))).body.plugins.find((p: any) => p.id === 'rev-shape'),
    (await client.get('/apps/api/plugins?scope=admin&limit=500', as(admin))).body.plugins.find((p: any) => p.id === 'rev-shape'),
    (await client.get('/apps/api/plugins?limit=500', as(author))).body.plugins.find((p: any) => p.id === 'rev-shape'),
    (await client.get('/apps/api/plugins?q=rev-shape', as(admin))).body.plugins.find((p: any) => p.id === 'rev-shape'),
    (await client.get('/apps/api/plugins?scope=mine&update=pending', as(author))).body.plugins.find((p: any) => p.id === 'rev-shape'),
    (await queue()).find((plugin) => plugin.id === 'rev-shape'),
  ];
  for (const [index, record] of answers.entries()) {
    assert.ok(record, `answer ${index} lists the plugin`);
    assert.type(record.revision, 'string', `answer ${index}`);
    assert.ok(record.revision.length > 0 && record.revision.length <= 64, `answer ${index}`);
  }
  assert.is(new Set(answers.slice(1).map((record) => record.revision)).size, 1, 'one revision, whoever reads it');
  assert.is.not(reviewed.revision, patched.revision);
});

test("revision: not in visitors' answers, nor in a user's who does not own the plugin", async () => {
  await approved('rev-public');
  for (const [what, user] of [['visitor', undefined], ['another user', other]] as const) {
    const one = await detail('rev-public', user);
    assert.is(one.status, 200);
    assert.not.ok('revision' in one.body.plugin, what);
    const listed = (await client.get('/apps/api/plugins?limit=500', user ? as(user) : {})).body.plugins.find((p: any) => p.id === 'rev-public');
    assert.not.ok('revision' in listed, what);
    const related = await client.get('/apps/api/plugins/rev-public?include=related', user ? as(user) : {});
    for (const item of related.body.related) assert.not.ok('revision' in item, what);
  }
});

test('revision changes with every change to the plugin or its pending update', async () => {
  const seen = new Set<string>();
  const step = async (what: string, act: () => Promise<{ status: number }>) => {
    const answer = await act();
    assert.ok(answer.status < 300, `${what}: ${answer.status}`);
    const { revision } = (await detail('rev-changes', admin)).body.plugin;
    assert.not.ok(seen.has(revision), `${what}: revision ${revision} seen before`);
    seen.add(revision);
  };
  await step('created', () => client.post('/apps/api/plugins', newPlugin('rev-changes'), as(author)));
  await step('author edit of the pending plugin', () => edit('rev-changes', { description: 'Two' }));
  await step('approved', () => review('rev-changes', { action: 'approve' }));
  await step('author edit: a pending update', () => edit('rev-changes', { download: GOOD }));
  await step('author edit merged into the pending update', () => edit('rev-changes', { download: EVIL }));
  await step('the same edit again', () => edit('rev-changes', { download: EVIL }));
  await step('update rejected', () => review('rev-changes', { action: 'reject' }));
  await step('administrator edit', () => edit('rev-changes', { name: 'Renamed' }, admin));
  await step('featured', () => edit('rev-changes', { featured: true }, admin));
  await step('another update', () => edit('rev-changes', { version: '3.0.0' }));
  await step('update approved', () => review('rev-changes', { action: 'approve' }));
  await step('unlisted', () => review('rev-changes', { action: 'unlist', reason: 'Broken' }));
});

test('revision: an install click or a rating is not a change to review', async () => {
  const { revision } = await approved('rev-counters');
  assert.is((await client.post('/apps/api/plugins/rev-counters/install-click', undefined)).status, 200);
  assert.is((await client.request('PUT', '/apps/api/plugins/rev-counters/ratings', { body: { stars: 5, comment: 'Nice' }, cookie: other.cookie })).status, 200);
  assert.is((await detail('rev-counters', admin)).body.plugin.revision, revision);
  assert.is((await review('rev-counters', { action: 'reject', revision })).status, 200);
});

test('revision: several site processes agree (it lives in PostgreSQL)', async () => {
  const secondClient = storeClient(second.url);
  await approved('rev-shared');
  assert.is((await secondClient.patch('/apps/api/plugins/rev-shared', { download: GOOD }, as(author))).status, 200);
  const here = (await detail('rev-shared', admin)).body.plugin.revision;
  assert.is((await secondClient.get('/apps/api/plugins/rev-shared', as(admin))).body.plugin.revision, here);
  assert.is((await secondClient.patch('/apps/api/plugins/rev-shared', { download: EVIL }, as(author))).status, 200);
  assertConflict(await review('rev-shared', { action: 'approve', revision: here }));
});

test('a review with the current revision, or without one (as before), is applied', async () => {
  const plugin = await created('rev-current');
  assert.is((await review('rev-current', { action: 'approve', revision: plugin.revision })).status, 200);
  assert.is((await edit('rev-current', { version: '2.0.0' })).status, 200);
  const answer = await review('rev-current', { action: 'approve' });
  assert.is(answer.status, 200);
  assert.is(answer.body.plugin.version, '2.0.0');
  assert.is((await review('rev-current', { action: 'reject', revision: null })).status, 200);
});

const badRevisions = [
  { what: 'a number', revision: 12 },
  { what: 'an empty string', revision: '' },
  { what: 'an object', revision: { at: 1 } },
  { what: 'a string of 65 characters', revision: '1'.repeat(65) },
  { what: 'a NUL', revision: '1\u00002' },
];
for (const row of badRevisions) {
  test(`review with revision ${row.what}: 400 VALIDATION_FAILED, field revision`, async () => {
    await sql`insert into plugins (id, submitter_id, name, version, download)
              values ('rev-bad-revision', ${author.id}, 'Bad', '1.0.0', 'https://x.example/b.zip') on conflict do nothing`;
    const answer = await review('rev-bad-revision', { action: 'approve', revision: row.revision });
    assert.is(answer.status, 400);
    assert.equal([answer.body.code, answer.body.field], ['VALIDATION_FAILED', 'revision']);
    assert.is((await detail('rev-bad-revision', admin)).body.plugin.status, 'pending');
  });
}

test('a revision of another plugin, or an old one of this plugin, is not current: 409', async () => {
  const one = await created('rev-other-one');
  await created('rev-other-two');
  assertConflict(await review('rev-other-two', { action: 'approve', revision: one.revision }));
  assertConflict(await review('rev-other-two', { action: 'approve', revision: 'not-a-revision' }));
});

// --- action "unlist" ---------------------------------------------------------

test('unlist: an approved plugin becomes rejected with the reason, its update discarded, its author told, audited', async () => {
  await approved('rev-down');
  assert.is((await edit('rev-down', { download: EVIL })).status, 200);
  const { revision } = (await detail('rev-down', admin)).body.plugin;
  const answer = await review('rev-down', { action: 'unlist', reason: '  Ships malware  ', revision });
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  const plugin = answer.body.plugin;
  assert.equal([plugin.status, plugin.pendingUpdate, plugin.review.action, plugin.review.reason], ['rejected', null, 'reject', 'Ships malware']);
  assert.is.not(plugin.revision, revision);
  assert.is((await client.get('/apps/api/plugins/rev-down')).status, 404, 'gone from the store');
  const told = await sql`select kind, message from notifications where user_id = ${author.id} and plugin_id = 'rev-down' order by id desc limit 1`;
  assert.equal({ ...told[0] }, { kind: 'review.rejected', message: 'Your plugin rev-down was rejected: Ships malware' });
  const [entry] = (await client.get('/apps/api/audit?plugin=rev-down', as(admin))).body.entries as any[];
  assert.is(entry.action, 'review.unlist');
  assert.equal(entry.before.status, 'approved');
  assert.equal(entry.after.status, 'rejected');
  assert.equal([entry.before.pendingUpdate, entry.after.pendingUpdate], [true, false]);
  // Approved again later, the update stays gone.
  const again = await review('rev-down', { action: 'approve' });
  assert.is(again.body.plugin.download, newPlugin('rev-down').download);
});

const unlistRefused = [
  { what: 'without a reason', setup: 'approved', body: { action: 'unlist' }, status: 400, code: 'VALIDATION_FAILED', field: 'reason' },
  { what: 'with a blank reason', setup: 'approved', body: { action: 'unlist', reason: '   ' }, status: 400, code: 'VALIDATION_FAILED', field: 'reason' },
  { what: 'with a reason of 1,001 characters', setup: 'approved', body: { action: 'unlist', reason: 'r'.repeat(1001) }, status: 400, code: 'VALIDATION_FAILED', field: 'reason' },
  { what: 'of a pending plugin', setup: 'pending', body: { action: 'unlist', reason: 'No' }, status: 409, code: 'CONFLICT' },
  { what: 'of a rejected plugin', setup: 'rejected', body: { action: 'unlist', reason: 'No' }, status: 409, code: 'CONFLICT' },
  { what: 'by a user who is not an administrator', setup: 'approved', body: { action: 'unlist', reason: 'No' }, status: 403, code: 'FORBIDDEN', by: 'author' },
] as const;
for (const [index, row] of unlistRefused.entries()) {
  test(`unlist ${row.what}: ${row.status} ${row.code}, nothing changed`, async () => {
    const id = `rev-unlist-${index}`;
    await created(id);
    if (row.setup !== 'pending') assert.is((await review(id, { action: row.setup === 'approved' ? 'approve' : 'reject' })).status, 200);
    const answer = await review(id, row.body, 'by' in row ? author : admin);
    assert.is(answer.status, row.status, JSON.stringify(answer.body));
    assert.is(answer.body.code, row.code);
    if ('field' in row) assert.is(answer.body.field, row.field);
    assert.is((await detail(id, admin)).body.plugin.status, row.setup);
  });
}

test('review with an unknown action: 400 naming action', async () => {
  await created('rev-action');
  const answer = await review('rev-action', { action: 'delete' });
  assert.equal([answer.status, answer.body.field], [400, 'action']);
});

test.run();
