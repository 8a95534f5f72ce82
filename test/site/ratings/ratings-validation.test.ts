// One row per input rule of ratings and replies: body fields failing a rule are 400
// VALIDATION_FAILED naming the field; a body that is not an object, and a bad
// `limit` or `offset`, are 400 BAD_REQUEST (the latter naming the parameter). Nothing
// is stored by a refused request.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../src/db/pool.js';
import { insertPlugin, testUser, type TestUser } from '../../helpers/store-fixtures.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { storeClient, type StoreClient } from '../store/store-client.js';

let site: TestServer;
let client: StoreClient;
let sql: Sql;
let rater: TestUser;
let replier: TestUser;

const PLUGIN = 'validated';
const RATINGS = `/apps/api/plugins/${PLUGIN}/ratings`;

test.before(async () => {
  sql = testSql();
  site = await startTestSite();
  client = storeClient(site.url);
  const author = await testUser(sql, 'rules-author');
  rater = await testUser(sql, 'rules-rater');
  replier = await testUser(sql, 'rules-replier');
  await insertPlugin(sql, PLUGIN, author);
  // A rating to reply to, made through the API.
  const answer = await client.request('PUT', RATINGS, { cookie: rater.cookie, body: { stars: 3, comment: 'original' } });
  assert.is(answer.status, 200);
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

async function storedState() {
  const [row] = await sql`
    select (select stars::integer from plugin_ratings where plugin_id = ${PLUGIN} and user_id = ${rater.id}) as stars,
           (select comment from plugin_ratings where plugin_id = ${PLUGIN} and user_id = ${rater.id}) as comment,
           (select count(*)::integer from plugin_rating_replies where plugin_id = ${PLUGIN}) as replies`;
  return { ...row };
}

interface Case {
  what: string;
  body: unknown;
  code: 'VALIDATION_FAILED' | 'BAD_REQUEST';
  field?: string;
}

const ratingCases: Case[] = [
  { what: 'stars missing', body: { comment: 'x' }, code: 'VALIDATION_FAILED', field: 'stars' },
  { what: 'stars null', body: { stars: null }, code: 'VALIDATION_FAILED', field: 'stars' },
  { what: 'stars 0', body: { stars: 0 }, code: 'VALIDATION_FAILED', field: 'stars' },
  { what: 'stars 6', body: { stars: 6 }, code: 'VALIDATION_FAILED', field: 'stars' },
  { what: 'stars -1', body: { stars: -1 }, code: 'VALIDATION_FAILED', field: 'stars' },
  { what: 'stars 4.5', body: { stars: 4.5 }, code: 'VALIDATION_FAILED', field: 'stars' },
  { what: 'stars as a string', body: { stars: '5' }, code: 'VALIDATION_FAILED', field: 'stars' },
  { what: 'stars true', body: { stars: true }, code: 'VALIDATION_FAILED', field: 'stars' },
  { what: 'stars huge', body: { stars: 1e308 }, code: 'VALIDATION_FAILED', field: 'stars' },
  { what: 'comment of 501 characters', body: { stars: 5, comment: 'c'.repeat(501) }, code: 'VALIDATION_FAILED', field: 'comment' },
  { what: 'comment of 501 emoji', body: { stars: 5, comment: '😀'.repeat(501) }, code: 'VALIDATION_FAILED', field: 'comment' },
  { what: 'comment a number', body: { stars: 5, comment: 42 }, code: 'VALIDATION_FAILED', field: 'comment' },
  { what: 'comment an object', body: { stars: 5, comment: { text: 'x' } }, code: 'VALIDATION_FAILED', field: 'comment' },
  { what: 'comment with NUL', body: { stars: 5, comment: 'a\u0000b' }, code: 'VALIDATION_FAILED', field: 'comment' },
  { what: 'body an array', body: [{ stars: 5 }], code: 'BAD_REQUEST' },
  { what: 'body a number', body: 5, code: 'BAD_REQUEST' },
  { what: 'body null', body: 'null', code: 'BAD_REQUEST' },
  { what: 'body not JSON', body: '{stars: 5', code: 'BAD_REQUEST' },
];

for (const c of ratingCases) {
  test(`PUT rating refuses ${c.what}`, async () => {
    const before = await storedState();
    const answer = await client.request('PUT', RATINGS, { cookie: rater.cookie, body: c.body });
    assert.is(answer.status, 400, JSON.stringify(answer.body));
    assert.is(answer.body.success, false);
    assert.is(answer.body.code, c.code);
    assert.is(answer.body.field, c.field);
    assert.type(answer.body.error, 'string');
    assert.equal(await storedState(), before);
  });
}

const replyCases: Case[] = [
  { what: 'body missing', body: {}, code: 'VALIDATION_FAILED', field: 'body' },
  { what: 'body null', body: { body: null }, code: 'VALIDATION_FAILED', field: 'body' },
  { what: 'body empty', body: { body: '' }, code: 'VALIDATION_FAILED', field: 'body' },
  { what: 'body only white space', body: { body: ' \n\t ' }, code: 'VALIDATION_FAILED', field: 'body' },
  { what: 'comment alias empty', body: { comment: '' }, code: 'VALIDATION_FAILED', field: 'body' },
  { what: 'body of 501 characters', body: { body: 'b'.repeat(501) }, code: 'VALIDATION_FAILED', field: 'body' },
  { what: 'body of 501 CJK characters', body: { body: '字'.repeat(501) }, code: 'VALIDATION_FAILED', field: 'body' },
  { what: 'body a number', body: { body: 7 }, code: 'VALIDATION_FAILED', field: 'body' },
  { what: 'body an array', body: { body: ['x'] }, code: 'VALIDATION_FAILED', field: 'body' },
  { what: 'body with NUL', body: { body: 'a\u0000' }, code: 'VALIDATION_FAILED', field: 'body' },
  { what: 'JSON body an array', body: ['hello'], code: 'BAD_REQUEST' },
  { what: 'JSON body a string', body: '"hello"', code: 'BAD_REQUEST' },
];

for (const c of replyCases) {
  test(`POST reply refuses ${c.what}`, async () => {
    const before = await storedState();
    const answer = await client.post(`${RATINGS}/rules-rater/replies`, c.body, { cookie: replier.cookie });
    assert.is(answer.status, 400, JSON.stringify(answer.body));
    assert.is(answer.body.code, c.code);
    assert.is(answer.body.field, c.field);
    assert.equal(await storedState(), before);
  });
}

const pageCases: Array<{ what: string; query: string; field: string }> = [
  { what: 'limit 0', query: 'limit=0', field: 'limit' },
  { what: 'limit 51', query: 'limit=51', field: 'limit' },
  { what: 'limit -1', query: 'limit=-1', field: 'limit' },
  { what: 'limit not a number', query: 'limit=ten', field: 'limit' },
  { what: 'limit a fraction', query: 'limit=1.5', field: 'limit' },
  { what: 'limit with a sign', query: 'limit=%2B5', field: 'limit' },
  { what: 'limit given twice', query: 'limit=5&limit=6', field: 'limit' },
  { what: 'limit of many digits', query: `limit=${'9'.repeat(40)}`, field: 'limit' },
  { what: 'offset -1', query: 'offset=-1', field: 'offset' },
  { what: 'offset not a number', query: 'offset=first', field: 'offset' },
  { what: 'offset in exponent form', query: 'offset=1e3', field: 'offset' },
  { what: 'offset past the largest', query: 'offset=1000001', field: 'offset' },
];

for (const c of pageCases) {
  test(`GET ratings refuses ${c.what} (400 BAD_REQUEST)`, async () => {
    const answer = await client.get(`${RATINGS}?${c.query}`);
    assert.is(answer.status, 400, JSON.stringify(answer.body));
    assert.is(answer.body.code, 'BAD_REQUEST');
    assert.is(answer.body.field, c.field);
  });
}

test('GET ratings accepts the edges: limit 1 and 50, offset 0, empty values meaning the defaults', async () => {
  for (const [query, limit, offset] of [
    ['limit=1', 1, 0],
    ['limit=50', 50, 0],
    ['offset=0', 20, 0],
    ['limit=&offset=', 20, 0],
    ['limit=05&offset=1000000', 5, 1_000_000],
  ] as const) {
    const answer = await client.get(`${RATINGS}?${query}`);
    assert.is(answer.status, 200, query);
    assert.is(answer.body.limit, limit, query);
    assert.is(answer.body.offset, offset, query);
  }
});

test('PUT rating accepts the edges: stars 1 and 5, 5.0, a 500-character comment, an empty comment; unknown fields ignored', async () => {
  for (const body of [
    { stars: 1 },
    { stars: 5.0, comment: 'c'.repeat(500) },
    { stars: 2, comment: '', status: 'approved', user: 'someone-else' },
  ]) {
    const answer = await client.request('PUT', RATINGS, { cookie: rater.cookie, body });
    assert.is(answer.status, 200, JSON.stringify(body));
    assert.is(answer.body.rating.stars, body.stars);
    assert.is(answer.body.rating.user, 'rules-rater');
  }
});

test.run();
