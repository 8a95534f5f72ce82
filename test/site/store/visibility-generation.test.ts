// The visibility generation (sql/008, sql/009) moves with what a visitor may see,
// and only with that: install counts and ratings move the store's generation alone,
// so answers built before them can still be served during an outage; content edits
// (a download replaced, a text a moderator edited) move both.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeTestSql, testSql } from '../../helpers/servers.js';
import { insertPlugin, insertRating, insertReply, testUser, type TestUser } from '../../helpers/store-fixtures.js';

const sql = testSql();
let alice: TestUser;
let rater: TestUser;

const read = async () => {
  const row = (await sql`select generation::text as store, visibility::text as visibility from store_generation`)[0]!;
  return { store: BigInt(row.store), visibility: BigInt(row.visibility) };
};

test.before(async () => {
  alice = await testUser(sql, 'vis-alice');
  rater = await testUser(sql, 'vis-rater');
  await insertPlugin(sql, 'vis-one', alice, 'approved');
  await insertRating(sql, 'vis-one', rater, 3, 'ok');
});
test.after(closeTestSql);

// Replies are in no answer kept per store generation (ratings pages are rebuilt while the database answers).
const changes: { what: string; visible: boolean; store?: false; change: () => Promise<unknown> }[] = [
  { what: 'an install counted', visible: false, change: () => sql`update plugins set install_count = install_count + 1 where id = 'vis-one'` },
  { what: 'a rating changed', visible: false, change: () => sql`update plugin_ratings set stars = 5 where plugin_id = 'vis-one'` },
  { what: 'only updated_at touched', visible: false, change: () => sql`update plugins set updated_at = now() where id = 'vis-one'` },
  // Content edits (sql/009): a stale answer would show what a moderator removed, or hand out a replaced download.
  { what: 'a description edited', visible: true, change: () => sql`update plugins set description = 'Edited' where id = 'vis-one'` },
  { what: 'a download replaced', visible: true, change: () => sql`update plugins set download = 'https://example.com/clean.zip', sha256 = ${'b'.repeat(64)} where id = 'vis-one'` },
  { what: 'a field written with its own value', visible: false, change: () => sql`update plugins set description = 'Edited' where id = 'vis-one'` },
  { what: 'a reply written', visible: false, store: false, change: async () => insertReply(sql, 'vis-one', rater, alice, 'Thanks') },
  { what: 'a plugin submitted', visible: true, change: () => insertPlugin(sql, 'vis-two', alice, 'pending') },
  { what: 'a plugin approved', visible: true, change: () => sql`update plugins set status = 'approved' where id = 'vis-two'` },
  { what: 'a plugin featured', visible: true, change: () => sql`update plugins set featured = true where id = 'vis-two'` },
  { what: 'a rating hidden', visible: true, change: () => sql`update plugin_ratings set hidden = true where plugin_id = 'vis-one'` },
  { what: 'a rating unhidden', visible: true, change: () => sql`update plugin_ratings set hidden = false where plugin_id = 'vis-one'` },
  { what: 'a reply deleted', visible: true, store: false, change: () => sql`delete from plugin_rating_replies where plugin_id = 'vis-one'` },
  { what: 'a rating deleted', visible: true, change: () => sql`delete from plugin_ratings where plugin_id = 'vis-one'` },
  { what: 'a plugin deleted', visible: true, change: () => sql`delete from plugins where id = 'vis-two'` },
];

test('the visibility generation moves with what visitors may see, not with counts and edits; the store generation with the kept answers', async () => {
  for (const { what, visible, store, change } of changes) {
    const before = await read();
    await change();
    const after = await read();
    assert.is(after.store > before.store, store ?? true, `${what}: the store generation`);
    assert.is(after.visibility > before.visibility, visible, `${what}: the visibility generation ${visible ? 'moves' : 'stays'}`);
  }
});

test('one transaction of many visible changes moves the visibility generation once', async () => {
  const before = await read();
  await sql.begin(async (tx) => {
    await insertPlugin(tx as never, 'vis-three', alice, 'approved');
    await tx`update plugins set status = 'rejected' where id = 'vis-three'`;
  });
  assert.is((await read()).visibility, before.visibility + 1n);
});

test.run();
