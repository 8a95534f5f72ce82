// Lists and details are built once per store generation (src/services/site/kept-answers.ts,
// sql/008_generations.sql): every change committed anywhere (through this
// site, another site process, or SQL) shows in the very next answer; logged-in
// authors are never served a visitor's answer (their own kept answers: own-answers.test.ts).
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPool } from '../../src/db/pool.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../helpers/servers.js';
import { insertPlugin, insertRating, testUser, type TestUser } from '../helpers/store-fixtures.js';
import { createKeptAnswers } from '../../src/services/site/kept-answers.js';

const sql = testSql();
let first: TestServer;
let second: TestServer;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;
const secondSql = createPool(process.env.TEST_DB_URL!);

const generation = async () => BigInt((await sql`select generation::text as g from store_generation`)[0]!.g);
const tagMap = (id: string) => sql`update plugins set tags = array['map'] where id = ${id}`;
const listIds = async (site: TestServer, path = '/apps/api/plugins?public=1', cookie?: string) => {
  const response = await fetch(site.url + path, { headers: cookie ? { cookie } : {} });
  assert.is(response.status, 200);
  const body = await response.json();
  return { ids: body.plugins.map((plugin: { id: string }) => plugin.id).sort(), body };
};

test.before(async () => {
  first = await startTestSite({ TRUST_PROXY: 'true' });
  second = await startTestSite({ TRUST_PROXY: 'true' }, secondSql);
  alice = await testUser(sql, 'vl-alice');
  bob = await testUser(sql, 'vl-bob');
  admin = await testUser(sql, 'vl-admin', { admin: true });
  await insertPlugin(sql, 'vl-one', alice, 'approved');
  await tagMap('vl-one');
});
test.after(async () => {
  await first.close();
  await second.close();
  await secondSql.end({ timeout: 2 });
  await closeTestSql();
});

test('a transaction bumps the generation once at commit, however many rows it changes; a rollback does not', async () => {
  const before = await generation();
  await sql.begin(async (tx) => {
    await tx`insert into plugins (id, submitter_id, name, version, author, description, download, status)
             select 'vl-bulk-' || n, ${alice.id}, 'Bulk ' || n, '1.0.0', 'a', 'd', 'https://downloads.example.com/b.zip', 'pending'
               from generate_series(1, 5) as n`;
    await tx`update plugins set featured = true where id like 'vl-bulk-%'`;
    // Deferred to commit: nothing yet, even inside the transaction.
    assert.is(BigInt((await tx`select generation::text as g from store_generation`)[0]!.g), before);
  });
  assert.is(await generation(), before + 1n);
  await sql.begin(async (tx) => {
    await tx`delete from plugins where id like 'vl-bulk-%'`;
    throw new Error('roll back');
  }).catch(() => {});
  assert.is(await generation(), before + 1n);
  await sql`delete from plugins where id like 'vl-bulk-%'`;
  assert.is(await generation(), before + 2n);
});

test('a change made by SQL shows in the next visitor answer, on both site processes', async () => {
  // Both processes keep an answer first.
  assert.equal((await listIds(first)).ids, ['vl-one']);
  assert.equal((await listIds(second)).ids, ['vl-one']);
  await insertPlugin(sql, 'vl-two', bob, 'approved');
  await tagMap('vl-two');
  assert.equal((await listIds(first)).ids, ['vl-one', 'vl-two']);
  assert.equal((await listIds(second)).ids, ['vl-one', 'vl-two']);
  await sql`update plugins set status = 'rejected' where id = 'vl-two'`;
  assert.equal((await listIds(second)).ids, ['vl-one']);
  assert.equal((await listIds(first)).ids, ['vl-one']);
});

test('a change made through one process shows at once on the other: install count, rating, review', async () => {
  const read = async (site: TestServer) => (await listIds(site, '/apps/api/plugins?tag=map')).body.plugins.find((p: { id: string }) => p.id === 'vl-one');
  assert.is((await read(second)).installCount, 0);
  const click = await fetch(first.url + '/apps/api/plugins/vl-one/install-click', { method: 'POST', headers: { 'x-forwarded-for': '203.0.113.9' } });
  assert.is(click.status, 200);
  assert.is((await read(second)).installCount, 1);
  await insertRating(sql, 'vl-one', bob, 4);
  const rated = await read(second);
  assert.is(rated.ratingCount, 1);
  assert.is(rated.ratingAvg, 4);
  await sql`update plugins set status = 'approved' where id = 'vl-two'`;
  assert.equal((await listIds(first, '/apps/api/plugins?tag=map')).ids, ['vl-one', 'vl-two']);
  const review = await fetch(second.url + '/apps/api/plugins/vl-two/review', {
    method: 'POST',
    headers: { cookie: admin.cookie, 'content-type': 'application/json', origin: 'http://site.test' },
    body: JSON.stringify({ action: 'reject', reason: 'broken' }),
  });
  assert.is(review.status, 200);
  assert.equal((await listIds(first, '/apps/api/plugins?tag=map')).ids, ['vl-one']);
});

test('a renamed submitter shows at once', async () => {
  assert.is((await listIds(first)).body.plugins[0].submitter, 'vl-alice');
  await sql`update users set username = 'vl-alice2' where id = ${alice.id}`;
  assert.is((await listIds(first)).body.plugins[0].submitter, 'vl-alice2');
  await sql`update users set username = 'vl-alice' where id = ${alice.id}`;
});

test('a logged-in user gets their own answer, never a visitor\'s', async () => {
  await insertPlugin(sql, 'vl-mine', alice, 'pending');
  assert.equal((await listIds(first, '/apps/api/plugins')).ids, ['vl-one']);
  const own = await listIds(first, '/apps/api/plugins', alice.cookie);
  assert.equal(own.ids, ['vl-mine', 'vl-one']);
  assert.ok('pendingUpdate' in own.body.plugins.find((p: { id: string }) => p.id === 'vl-mine'));
  // And the visitor's answer did not take the user's.
  assert.equal((await listIds(first, '/apps/api/plugins')).ids, ['vl-one']);
});

test("a visitor's detail, with and without related, follows every change; a hidden plugin stays 404", async () => {
  const detail = async (site: TestServer, path: string) => {
    const response = await fetch(site.url + path);
    return { status: response.status, body: await response.json() };
  };
  assert.is((await detail(first, '/apps/api/plugins/vl-one')).body.plugin.version, '1.0.0');
  assert.equal((await detail(first, '/apps/api/plugins/VL-ONE?include=related')).body.related.map((p: { id: string }) => p.id), []);
  await sql`update plugins set version = '1.1.0' where id = 'vl-one'`;
  await sql`update plugins set status = 'approved' where id = 'vl-two'`;
  assert.is((await detail(second, '/apps/api/plugins/vl-one')).body.plugin.version, '1.1.0');
  assert.equal((await detail(first, '/apps/api/plugins/vl-one?related=1')).body.related.map((p: { id: string }) => p.id), ['vl-two']);
  await sql`update plugins set status = 'pending' where id = 'vl-two'`;
  assert.is((await detail(first, '/apps/api/plugins/vl-two')).status, 404);
  assert.is((await detail(first, '/apps/api/plugins/vl-two')).status, 404);
  assert.equal((await detail(first, '/apps/api/plugins/vl-one?related=1')).body.related, []);
  // Its author still sees it, with the review fields a visitor never gets.
  const own = await fetch(first.url + '/apps/api/plugins/vl-two', { headers: { cookie: bob.cookie } });
  assert.is(own.status, 200);
  assert.ok('review' in (await own.json()).plugin);
});

test('a player who has submitted nothing is answered what a visitor is; once they submit, their own answer', async () => {
  const carol = await testUser(sql, 'vl-carol');
  const visitor = await fetch(first.url + '/apps/api/plugins?tag=map');
  const player = await fetch(first.url + '/apps/api/plugins?tag=map', { headers: { cookie: carol.cookie } });
  assert.is(await player.text(), await visitor.text());
  const detail = await fetch(first.url + '/apps/api/plugins/vl-one', { headers: { cookie: carol.cookie } });
  assert.not.ok('review' in (await detail.json()).plugin);
  await insertPlugin(sql, 'vl-carols', carol, 'pending');
  await tagMap('vl-carols');
  const own = await listIds(second, '/apps/api/plugins?tag=map', carol.cookie);
  assert.equal(own.ids, ['vl-carols', 'vl-one']);
  assert.equal((await listIds(second, '/apps/api/plugins?tag=map')).ids, ['vl-one']);
  // scope=mine is about the caller, never a shared answer.
  assert.equal((await listIds(first, '/apps/api/plugins?scope=mine', carol.cookie)).ids, ['vl-carols']);
});

test('one kept answer per question: the order of the parameters, public=1 and unknown ones do not make another', async () => {
  const version = async (path: string) => (await (await fetch(first.url + path)).json()).plugins.find((p: { id: string }) => p.id === 'vl-one').version;
  const kept = await version('/apps/api/plugins?tag=map&sort=installs');
  // A change the generation does not see: only a kept answer can still show the old version.
  await sql.begin(async (tx) => {
    await tx`alter table plugins disable trigger plugins_bump_generation`;
    await tx`alter table plugins disable trigger plugins_bump_visibility_content`;
    await tx`update plugins set version = '9.9.9' where id = 'vl-one'`;
    await tx`alter table plugins enable trigger plugins_bump_visibility_content`;
    await tx`alter table plugins enable trigger plugins_bump_generation`;
  });
  try {
    for (const path of ['/apps/api/plugins?sort=installs&tag=map', '/apps/api/plugins?tag=MAP&sort=installs&public=1', '/apps/api/plugins?tag=map&sort=installs&junk=1&limit=100']) {
      assert.is(await version(path), kept, path);
    }
    // Another question is built afresh, and sees the change.
    assert.is(await version('/apps/api/plugins?tag=map&sort=rating'), '9.9.9');
  } finally {
    await sql`update plugins set version = ${kept} where id = 'vl-one'`;
  }
});

test('a kept answer is sent in each coding the client accepts, the same JSON', async () => {
  for (let i = 0; i < 40; i++) await insertPlugin(sql, `vl-many-${i}`, bob, 'approved', { description: 'x'.repeat(300) });
  const plain = await fetch(first.url + '/apps/api/plugins?public=1&limit=100', { headers: { 'accept-encoding': 'identity' } });
  const text = await plain.text();
  assert.ok(text.length > 8192, `${text.length} bytes`);
  for (const [coding, decode] of [['gzip', gunzipSync], ['br', brotliDecompressSync]] as const) {
    for (let i = 0; i < 2; i++) {
      // node's fetch decodes on its own; a raw request sees the bytes.
      const { request } = await import('node:http');
      const bytes = await new Promise<Buffer>((resolve, reject) => {
        request(first.url + '/apps/api/plugins?public=1&limit=100', { headers: { 'accept-encoding': coding } }, (res) => {
          assert.is(res.headers['content-encoding'], coding);
          assert.is(res.headers['cache-control'], 'no-store');
          const chunks: Buffer[] = [];
          res.on('data', (chunk) => chunks.push(chunk)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
        }).on('error', reject).end();
      });
      assert.is(decode(bytes).toString(), text);
    }
  }
});

test('kept answers say Cache-Control: no-store once, to visitors, authors and administrators', async () => {
  for (const [what, cookie] of [['visitor', undefined], ['author', alice.cookie], ['administrator', admin.cookie]] as const) {
    for (const path of ['/apps/api/plugins?limit=5', '/apps/api/plugins?limit=5&tag=map']) {
      for (let i = 0; i < 2; i++) {
        const answer = await fetch(first.url + path, { headers: cookie ? { cookie } : {} });
        assert.is(answer.status, 200, `${what} ${path}`);
        assert.is(answer.headers.get('cache-control'), 'no-store', `${what} ${path}`);
      }
    }
  }
});

test('bad parameters are refused before anything is kept or built', async () => {
  const answer = await fetch(first.url + '/apps/api/plugins?limit=0');
  assert.is(answer.status, 400);
  assert.is((await answer.json()).field, 'limit');
});

test('concurrent visitors asking the same missing answer share one build; a failed build is not kept', async () => {
  const limits = { maxEntries: 4, maxBytes: 1 << 20 };
  const lists = createKeptAnswers(sql, { visitors: limits, own: limits });
  const answer = (key: string, build: () => Promise<unknown>) => lists.answer({ shared: key, own: key }, null, build);
  let builds = 0;
  const build = async () => {
    builds++;
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { n: builds };
  };
  const answers = await Promise.all(Array.from({ length: 10 }, () => answer('k', build)));
  assert.is(builds, 1);
  assert.ok(answers.every((answer) => answer === answers[0]));
  assert.is((await answer('k', build)).body.toString(), '{"n":1}');
  const failed = await answer('bad', () => Promise.reject(new Error('boom'))).then(() => 'built', (error: Error) => error.message);
  assert.is(failed, 'boom');
  assert.is((await answer('bad', async () => ({ ok: true }))).body.toString(), '{"ok":true}');
  // A new generation: built again.
  await sql`update plugins set featured = not featured where id = 'vl-one'`;
  assert.is((await answer('k', build)).body.toString(), '{"n":2}');
});

test.run();
