// Who may read and write ratings: visitor, the plugin's author, another user and an
// administrator × pending, approved and rejected plugins × every ratings route.
// What a caller may not see is 404, exactly as for a plugin that does not exist.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../src/db/pool.js';
import { insertPlugin, insertRating, insertReply, testUser, type Status, type TestUser } from '../../helpers/store-fixtures.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { storeClient, type StoreClient } from '../store/store-client.js';

type Viewer = 'visitor' | 'author' | 'other' | 'admin';
type Operation = 'read' | 'rate' | 'unrate' | 'reply' | 'unreply';

let site: TestServer;
let client: StoreClient;
let sql: Sql;
let people: Record<Exclude<Viewer, 'visitor'> | 'rater' | 'replier', TestUser>;

test.before(async () => {
  sql = testSql();
  site = await startTestSite();
  client = storeClient(site.url);
  people = {
    author: await testUser(sql, 'vis-author'),
    other: await testUser(sql, 'vis-other'),
    admin: await testUser(sql, 'vis-admin', { admin: true }),
    rater: await testUser(sql, 'vis-rater'),
    replier: await testUser(sql, 'vis-replier'),
  };
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

const VIEWERS: Viewer[] = ['visitor', 'author', 'other', 'admin'];
const STATUSES: Status[] = ['pending', 'approved', 'rejected'];

/** What each viewer gets, by the rule in src/services/site/store/visibility.ts and docs/api.md. */
function expected(operation: Operation, viewer: Viewer, status: Status): number {
  const sees = status === 'approved' || viewer === 'author' || viewer === 'admin';
  if (viewer === 'visitor' && operation !== 'read') return 401;
  if (!sees) return 404;
  switch (operation) {
    case 'read':
      return 200;
    case 'rate':
      if (viewer === 'author') return 403; // own plugin, whatever its status
      return status === 'approved' ? 200 : 404; // only approved plugins are rated
    case 'unrate':
      return 200;
    case 'reply':
      return 201;
    case 'unreply':
      return viewer === 'admin' ? 200 : 403; // the reply is the replier's
  }
}

for (const operation of ['read', 'rate', 'unrate', 'reply', 'unreply'] as Operation[]) {
  for (const status of STATUSES) {
    test(`${operation} ratings of ${status === 'approved' ? 'an' : 'a'} ${status} plugin: ${VIEWERS.map((v) => `${v} ${expected(operation, v, status)}`).join(', ')}`, async () => {
      for (const viewer of VIEWERS) {
        // A plugin of its own per cell, with a rating by `rater` and a reply to it by
        // `replier`; for `unrate`, also a rating by the viewer (written directly:
        // the API rates approved plugins only).
        const id = `v-${operation}-${status}-${viewer}`;
        await insertPlugin(sql, id, people.author, status);
        await insertRating(sql, id, people.rater, 4, 'rated');
        const replyId = await insertReply(sql, id, people.rater, people.replier, 'replied');
        const user = viewer === 'visitor' ? undefined : people[viewer];
        if (operation === 'unrate' && user) await insertRating(sql, id, user, 2);

        const base = `/apps/api/plugins/${id}/ratings`;
        const options = user ? { cookie: user.cookie } : {};
        const answer = await {
          read: () => client.get(base, options),
          rate: () => client.request('PUT', base, { ...options, body: { stars: 5 } }),
          unrate: () => client.request('DELETE', base, options),
          reply: () => client.post(`${base}/vis-rater/replies`, { body: 'hello' }, options),
          unreply: () => client.request('DELETE', `${base}/replies/${replyId}`, options),
        }[operation]();

        const want = expected(operation, viewer, status);
        assert.is(answer.status, want, `${viewer}: ${JSON.stringify(answer.body)}`);
        assert.is(answer.body.success, want < 300, viewer);
        if (want === 404) {
          // Indistinguishable from a plugin that does not exist.
          const missing = await {
            read: () => client.get('/apps/api/plugins/never-was/ratings', options),
            rate: () => client.request('PUT', '/apps/api/plugins/never-was/ratings', { ...options, body: { stars: 5 } }),
            unrate: () => client.request('DELETE', '/apps/api/plugins/never-was/ratings', options),
            reply: () => client.post('/apps/api/plugins/never-was/ratings/vis-rater/replies', { body: 'hello' }, options),
            unreply: () => client.request('DELETE', `/apps/api/plugins/never-was/ratings/replies/${replyId}`, options),
          }[operation]();
          assert.is(missing.status, 404);
          assert.equal(answer.body, missing.body, viewer);
        }
        if (operation === 'read' && want === 200) {
          assert.is(answer.body.count, 1, viewer);
          assert.is(answer.body.ratings[0].replies[0].body, 'replied', viewer);
        }
      }
    });
  }
}

test('visibility: an id in another case reaches the same plugin under the same rule', async () => {
  await insertPlugin(sql, 'Vis-Case', people.author, 'pending');
  assert.is((await client.get('/apps/api/plugins/vis-case/ratings')).status, 404);
  assert.is((await client.get('/apps/api/plugins/VIS-CASE/ratings', { cookie: people.author.cookie })).status, 200);
});

test.run();
