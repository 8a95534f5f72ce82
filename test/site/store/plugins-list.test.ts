// GET /apps/api/plugins and the detail: filters, scopes, sorts (ties by id, the
// Bayesian rating sort), paging with total, featured, related, bad parameters.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { pluginIn, storeClient, storeUsers, type StoreClient, type Users } from './store-client.js';

let site: TestServer;
let client: StoreClient;
let users: Users;
const sql = testSql();
const ids = (answer: { body: { plugins: Array<{ id: string }> } }) => answer.body.plugins.map((plugin) => plugin.id);

async function setRatings(id: string, stars: number[]): Promise<void> {
  // Raters are users of their own; the trigger keeps the plugin's counts.
  for (const [i, value] of stars.entries()) {
    const [{ id: user }] = await sql`insert into users (username) values (${`${id}-rater-${i}`}) returning id::text`;
    await sql`insert into plugin_ratings (plugin_id, user_id, stars) values (${id}, ${user}, ${value})`;
  }
}

test.before(async () => {
  site = await startTestSite();
  client = storeClient(site.url);
  users = await storeUsers(sql);
  await pluginIn(client, users, 'approved', 'l-alpha', { tags: ['Map', 'hud'] });
  await pluginIn(client, users, 'approved', 'l-beta', { tags: ['map'] }, users.bob);
  await pluginIn(client, users, 'approved', 'l-gamma', { tags: ['chat'] });
  await pluginIn(client, users, 'pending', 'l-pending-alice', { tags: ['map'] });
  await pluginIn(client, users, 'rejected', 'l-rejected-alice', { tags: ['map'] });
  await pluginIn(client, users, 'pending', 'l-pending-bob', { tags: ['map'] }, users.bob);
  await sql`update plugins set install_count = case id when 'l-alpha' then 10 when 'l-beta' then 10 when 'l-gamma' then 50 else 0 end`;
  // One 5-star rating must not outrank a hundred 4.8s (here: twenty 4.8s).
  await setRatings('l-alpha', [5]);
  await setRatings('l-gamma', [...Array(16).fill(5), ...Array(4).fill(4)]);
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

test('GET /apps/api/plugins: {success, plugins, total}; a visitor sees approved plugins only', async () => {
  const answer = await client.get('/apps/api/plugins');
  assert.is(answer.status, 200);
  assert.is(answer.body.success, true);
  assert.equal(ids(answer).sort(), ['l-alpha', 'l-beta', 'l-gamma']);
  assert.is(answer.body.total, 3);
  const record = answer.body.plugins[0];
  for (const key of ['id', 'name', 'version', 'author', 'description', 'download', 'permissions', 'tags', 'status', 'installCount', 'ratingAvg', 'ratingCount', 'featured', 'submitter', 'createdAt', 'updatedAt']) {
    assert.ok(key in record, key);
  }
  assert.is(record.pendingUpdate, undefined);
});

test('without public=1 a user also sees own plugins in any status; an administrator sees all', async () => {
  const own = await client.get('/apps/api/plugins', { cookie: users.alice });
  assert.equal(ids(own).sort(), ['l-alpha', 'l-beta', 'l-gamma', 'l-pending-alice', 'l-rejected-alice']);
  assert.is(own.body.total, 5);
  const all = await client.get('/apps/api/plugins', { cookie: users.admin });
  assert.is(ids(all).length, 6);
  assert.is(all.body.total, 6);
  // Totals and pages agree for every viewer and status filter.
  for (const cookie of [undefined, users.alice, users.bob, users.admin]) {
    for (const status of ['', 'pending', 'approved', 'rejected']) {
      const answer = await client.get(`/apps/api/plugins?status=${status}&limit=500`, { cookie });
      assert.is(answer.body.total, answer.body.plugins.length, `${cookie ?? 'visitor'} ${status}`);
    }
  }
});

test('public=1: approved plugins only, whoever asks', async () => {
  for (const cookie of [undefined, users.alice, users.admin]) {
    assert.equal(ids(await client.get('/apps/api/plugins?public=1', { cookie })).sort(), ['l-alpha', 'l-beta', 'l-gamma']);
  }
});

test('scope=mine: the caller’s own plugins in any status; 401 without login', async () => {
  assert.equal(ids(await client.get('/apps/api/plugins?scope=mine', { cookie: users.alice })).sort(), ['l-alpha', 'l-gamma', 'l-pending-alice', 'l-rejected-alice']);
  const anonymous = await client.get('/apps/api/plugins?scope=mine');
  assert.is(anonymous.status, 401);
  assert.is(anonymous.body.code, 'UNAUTHORIZED');
});

test('scope=admin: all plugins for administrators; 401 without login, 403 for others', async () => {
  assert.is((await client.get('/apps/api/plugins?scope=admin', { cookie: users.admin })).body.total, 6);
  assert.is((await client.get('/apps/api/plugins?scope=admin')).status, 401);
  const user = await client.get('/apps/api/plugins?scope=admin', { cookie: users.alice });
  assert.is(user.status, 403);
  assert.is(user.body.code, 'FORBIDDEN');
});

test('status: filters within what the caller may see', async () => {
  assert.equal(ids(await client.get('/apps/api/plugins?status=pending', { cookie: users.admin })).sort(), ['l-pending-alice', 'l-pending-bob']);
  assert.equal(ids(await client.get('/apps/api/plugins?status=pending', { cookie: users.alice })), ['l-pending-alice']);
  assert.equal(ids(await client.get('/apps/api/plugins?status=pending')), []);
  assert.equal(ids(await client.get('/apps/api/plugins?status=rejected&scope=mine', { cookie: users.alice })), ['l-rejected-alice']);
});

test('tag: exact, case-insensitive', async () => {
  assert.equal(ids(await client.get('/apps/api/plugins?tag=MAP')).sort(), ['l-alpha', 'l-beta']);
  assert.equal(ids(await client.get('/apps/api/plugins?tag=ma')), []);
});

test('tag totals (from plugin_tag_counts) agree with the pages for every viewer, status, sort and scope', async () => {
  for (const cookie of [undefined, users.alice, users.bob, users.admin]) {
    for (const tag of ['map', 'MAP', 'hud', 'chat', 'absent']) {
      for (const status of ['', 'pending', 'approved', 'rejected']) {
        for (const extra of ['', '&sort=rating', '&sort=installs', '&public=1', '&featured=1', ...(cookie ? ['&scope=mine'] : [])]) {
          const answer = await client.get(`/apps/api/plugins?tag=${tag}&status=${status}&limit=500${extra}`, { cookie });
          assert.is(answer.status, 200);
          assert.is(answer.body.total, answer.body.plugins.length, `${cookie ?? 'visitor'} ${tag} ${status} ${extra}`);
        }
      }
    }
  }
  // Alice sees her pending and rejected map plugins besides the approved ones.
  assert.is((await client.get('/apps/api/plugins?tag=map', { cookie: users.alice })).body.total, 4);
  assert.is((await client.get('/apps/api/plugins?tag=map', { cookie: users.admin })).body.total, 5);
  assert.is((await client.get('/apps/api/plugins?tag=map&limit=1')).body.total, 2);
});

test('sort=installs: most installed first, ties by id', async () => {
  assert.equal(ids(await client.get('/apps/api/plugins?sort=installs')), ['l-gamma', 'l-alpha', 'l-beta']);
});

test('sort=rating: Bayesian average (one 5-star rating does not outrank many 4.8s); ratingAvg stays the plain mean', async () => {
  const answer = await client.get('/apps/api/plugins?sort=rating');
  assert.equal(ids(answer), ['l-gamma', 'l-alpha', 'l-beta']);
  const gamma = answer.body.plugins[0];
  assert.is(gamma.ratingAvg, (16 * 5 + 4 * 4) / 20);
  assert.is(gamma.ratingCount, 20);
  assert.is(answer.body.plugins[1].ratingAvg, 5);
});

test('sort=updated (the default): last changed first, ties by id', async () => {
  await sql`update plugins set updated_at = '2030-01-01T00:00:00Z' where id in ('l-beta', 'l-gamma')`;
  assert.equal(ids(await client.get('/apps/api/plugins?sort=updated')), ['l-beta', 'l-gamma', 'l-alpha']);
  assert.equal(ids(await client.get('/apps/api/plugins')), ['l-beta', 'l-gamma', 'l-alpha']);
});

test('featured=1 lists featured plugins only; a sort never moves featured plugins up', async () => {
  await client.patch('/apps/api/plugins/l-beta', { featured: true }, { cookie: users.admin });
  assert.equal(ids(await client.get('/apps/api/plugins?featured=1')), ['l-beta']);
  assert.equal(ids(await client.get('/apps/api/plugins?sort=installs')), ['l-gamma', 'l-alpha', 'l-beta']);
});

test('limit and offset page the list; total counts all; an offset past the end is an empty page', async () => {
  const page = await client.get('/apps/api/plugins?sort=installs&limit=1&offset=1');
  assert.equal(ids(page), ['l-alpha']);
  assert.is(page.body.total, 3);
  const past = await client.get('/apps/api/plugins?offset=50');
  assert.equal(past.body.plugins, []);
  assert.is(past.body.total, 3);
});

test('bad parameters: 400 BAD_REQUEST naming the parameter', async () => {
  const rows: Array<{ what: string; query: string; field: string }> = [
    { what: 'limit 0', query: 'limit=0', field: 'limit' },
    { what: 'limit 501', query: 'limit=501', field: 'limit' },
    { what: 'limit not a number', query: 'limit=ten', field: 'limit' },
    { what: 'negative offset', query: 'offset=-1', field: 'offset' },
    { what: 'unknown sort', query: 'sort=name', field: 'sort' },
    { what: 'unknown status', query: 'status=deleted', field: 'status' },
    { what: 'unknown scope', query: 'scope=everyone', field: 'scope' },
    { what: 'public not a flag', query: 'public=yes', field: 'public' },
    { what: 'q too long', query: `q=${'a'.repeat(201)}`, field: 'q' },
    { what: 'q too long once NFKC-normalized (one word past a tsquery lexeme\'s 2,047 bytes: was a 500)', query: `q=${encodeURIComponent('\u3315'.repeat(200))}`, field: 'q' },
    { what: 'q with NUL', query: 'q=a%00b', field: 'q' },
    { what: 'tag with NUL (PostgreSQL text cannot hold it: was a 500)', query: 'tag=a%00b', field: 'tag' },
    { what: 'tag too long', query: `tag=${'t'.repeat(65)}`, field: 'tag' },
    { what: 'limit given twice', query: 'limit=1&limit=2', field: 'limit' },
  ];
  for (const { what, query, field } of rows) {
    const answer = await client.get(`/apps/api/plugins?${query}`);
    assert.is(answer.status, 400, what);
    assert.is(answer.body.code, 'BAD_REQUEST', what);
    assert.is(answer.body.field, field, what);
  }
  assert.is((await client.get('/apps/api/plugins?limit=500')).status, 200);
});

test('GET /apps/api/plugins/:id: {success, plugin} with longDescription; 404 NOT_FOUND for a missing id', async () => {
  const answer = await client.get('/apps/api/plugins/l-alpha');
  assert.is(answer.status, 200);
  assert.is(answer.body.plugin.id, 'l-alpha');
  assert.is(answer.body.plugin.longDescription, '');
  assert.is(answer.body.related, undefined);
  for (const path of ['no-such-plugin', 'x', 'a%2Fb', '%00%00%00']) {
    const missing = await client.get(`/apps/api/plugins/${path}`);
    assert.is(missing.status, 404, path);
    assert.is(missing.body.code, 'NOT_FOUND');
  }
});

test('related (include=related or related=1): approved only, most shared tags, then same submitter, never itself, at most 6', async () => {
  await pluginIn(client, users, 'approved', 'r-base', { tags: ['x1', 'x2', 'x3'] });
  await pluginIn(client, users, 'approved', 'r-three', { tags: ['X1', 'x2', 'x3'] }, users.bob);
  await pluginIn(client, users, 'approved', 'r-two', { tags: ['x1', 'x2'] }, users.bob);
  await pluginIn(client, users, 'approved', 'r-one-same', { tags: ['x3'] });
  await pluginIn(client, users, 'approved', 'r-one-other', { tags: ['x1'] }, users.bob);
  await pluginIn(client, users, 'pending', 'r-hidden', { tags: ['x1', 'x2', 'x3'] });
  const first = await client.get('/apps/api/plugins/r-base?include=related');
  const related = first.body.related.map((plugin: { id: string }) => plugin.id);
  assert.equal(related.slice(0, 4), ['r-three', 'r-two', 'r-one-same', 'r-one-other']);
  assert.ok(!related.includes('r-base'));
  assert.ok(!related.includes('r-hidden'));
  assert.ok(related.length <= 6);
  // The rest: alice's other approved plugins (same submitter, no shared tag).
  assert.is(related.length, 6);
  const second = await client.get('/apps/api/plugins/r-base?related=1');
  assert.equal(second.body.related.map((plugin: { id: string }) => plugin.id), related);
});

test.run();
