// No client input reaches a 500: every route of both route tables (read from the
// services themselves, so a new route is swept without anyone adding it here) gets
// hostile JSON bodies and hostile query, path and field values, as an
// administrator (and with an API token where the route takes one), so that guards
// do not hide the handlers. Fixtures are put back before each write, so every
// request finds a plugin, a rating, a reply, a report and a token to act on.
//
// Regression (issue 17, "input that reaches a 500"): POST /apps/api/tokens with the
// body `null` (a TypeError) and GET /apps/api/audit?user=a%00b (PostgreSQL refuses
// the NUL) both answered 500.
import { request } from 'node:http';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../src/lib/project-root.js';
import { createImghost } from '../src/services/imghost/app.js';
import { IMGHOST_OPENAPI } from '../src/services/imghost/openapi/document.js';
import { createSite } from '../src/services/site/app.js';
import { SITE_OPENAPI } from '../src/services/site/openapi/document.js';
import { TOKEN_SCOPES } from '../src/services/site/auth/tokens/scopes.js';
import { makePng } from './fixtures/images/generate.js';
import { startFakeIdp, type FakeIdp } from './helpers/fake-idp.js';
import { operations, type Json } from './helpers/openapi.js';
import { closeTestSql, startTestImghost, startTestSite, testConfig, testLogger, testSql, type TestServer } from './helpers/servers.js';
import { insertPlugin, insertRating, testUser, type TestUser } from './helpers/store-fixtures.js';

interface Answer {
  status: number;
  body: string;
}

interface Caller {
  what: string;
  headers: Record<string, string>;
}

let idp: FakeIdp;
let site: TestServer;
let imghost: TestServer;
let siteRoutes: Array<{ method: string; path: string }>;
let imghostRoutes: Array<{ method: string; path: string }>;
let admin: TestUser;
let author: TestUser;
let rater: TestUser;
/** Whose session the logout routes end (never the administrator's). */
let leaver: TestUser;
let authorToken: string;
let image: { timestamp: string; md5: string };
const sql = testSql();
let addressCounter = 0;

/** One request with the target and body sent exactly as given; a hang of 20 s is a failure too. */
function send(server: TestServer, method: string, target: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const url = new URL(server.url);
  // A fresh client address each time (TRUST_PROXY is on): per-address limits would hide handlers.
  const address = `10.${(++addressCounter >> 16) & 255}.${(addressCounter >> 8) & 255}.${addressCounter & 255}`;
  return new Promise((resolve) => {
    const req = request({ host: url.hostname, port: url.port, method, path: target, headers: { 'x-forwarded-for': address, ...headers }, timeout: 20_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (error) => resolve({ status: -1, body: String(error) }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer in 20 s')));
    req.on('error', (error) => resolve({ status: -1, body: String(error) }));
    req.end(body);
  });
}

test.before(async () => {
  try {
    await setUp();
  } catch (error) {
    // uvu says no more than that the tests failed when a hook throws.
    console.error('setting up failed:', error);
    throw error;
  }
});

async function setUp(): Promise<void> {
  idp = await startFakeIdp();
  imghost = await startTestImghost();
  site = await startTestSite({ ...idp.env(), TRUST_PROXY: 'true', ADMIN_USERS: 'sweep-admin', IMAGE_HOST_URL: imghost.url, IMAGE_HOST_PUBLIC_URL: 'https://img.sweep.example', LAUNCHER_CONFIG: join(projectRoot(), 'config', 'launcher.example.json') });
  const siteApp = createSite({ config: testConfig(), sql, log: testLogger() });
  siteRoutes = siteApp.routes;
  await siteApp.close();
  const imghostApp = await createImghost({ config: testConfig(), log: testLogger() });
  imghostRoutes = imghostApp.routes;
  await imghostApp.close();

  admin = await testUser(sql, 'sweep-admin', { admin: true });
  author = await testUser(sql, 'sweep-author');
  rater = await testUser(sql, 'sweep-rater');
  leaver = await testUser(sql, 'sweep-leaver');
  // The token is the plugin's author's: tokens carry no administrator rights, and
  // the author's may edit the swept plugin, so its requests reach the edit itself.
  const created = await send(site, 'POST', '/apps/api/tokens', { cookie: author.cookie, 'content-type': 'application/json' }, JSON.stringify({ name: 'sweep', scopes: TOKEN_SCOPES }));
  assert.is(created.status, 201, created.body);
  authorToken = JSON.parse(created.body).secret;

  const png = await makePng(7);
  const boundary = 'sweepboundary';
  const form = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
    png,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const uploaded = await send(imghost, 'POST', '/api/upload', { 'content-type': `multipart/form-data; boundary=${boundary}` }, form as unknown as string);
  assert.is(uploaded.status, 200, uploaded.body);
  image = JSON.parse(uploaded.body).data;
}
test.after(async () => {
  await site.close();
  await imghost.close();
  await idp.close();
  await closeTestSql();
});

const PLUGIN = 'sweep-plugin';

/** The plugin, the rater's rating and a reply to it, an open report and a spare token, as each write may have left them; no limit reached. */
async function putFixturesBack(): Promise<{ replyId: string; reportId: string; tokenId: string }> {
  // Every limit forgotten (tokens, ratings, replies, reports...): a 429 would hide the handler.
  await sql`delete from rate_limits`;
  await sql`insert into plugins (id, submitter_id, name, version, download, status) values (${PLUGIN}, ${author.id}, 'Sweep', '1.0.0', 'https://downloads.example.com/sweep.zip', 'approved') on conflict do nothing`;
  await sql`update plugins set status = 'approved' where id = ${PLUGIN} and status <> 'approved'`;
  await sql`insert into plugin_ratings (plugin_id, user_id, stars, comment) values (${PLUGIN}, ${rater.id}, 4, 'fine') on conflict do nothing`;
  const [reply] = await sql<Array<{ id: string }>>`
    with found as (select id from plugin_rating_replies where plugin_id = ${PLUGIN} and rating_user_id = ${rater.id} limit 1),
         made as (insert into plugin_rating_replies (plugin_id, rating_user_id, user_id, body)
                  select ${PLUGIN}, ${rater.id}, ${admin.id}, 'thanks' where not exists (select 1 from found) returning id)
    select id::text from found union all select id::text from made`;
  const [report] = await sql<Array<{ id: string }>>`
    with found as (select id from reports where plugin_id = ${PLUGIN} and status = 'open' limit 1),
         made as (insert into reports (reporter_id, target_type, plugin_id, reason)
                  select ${rater.id}, 'plugin', ${PLUGIN}, 'spam' where not exists (select 1 from found) returning id)
    select id::text from found union all select id::text from made`;
  const [token] = await sql<Array<{ id: string }>>`
    with found as (select id from api_tokens where user_id = ${admin.id} and name = 'spare' limit 1),
         made as (insert into api_tokens (user_id, token_hash, name, scopes, prefix, expires_at)
                  select ${admin.id}, sha256(convert_to(random()::text, 'UTF8')), 'spare', array['plugins:write'], 'lwt_spare', now() + interval '1 day'
                  where not exists (select 1 from found) returning id)
    select id::text from found union all select id::text from made`;
  return { replyId: reply!.id, reportId: report!.id, tokenId: token!.id };
}

/** A path of the route with each parameter filled: a working value, or `override` for all of them (or for the one named `only`). */
function fill(path: string, values: { replyId: string; reportId: string; tokenId: string }, override?: string, only?: string): string {
  return path.replace(/:([A-Za-z_]+)|\*$/g, (whole, name: string | undefined) => {
    if (override !== undefined && (only === undefined || name === only)) return override;
    if (whole === '*') {
      if (path.startsWith('/SF')) return path.startsWith('/SFs') ? 'home.svg' : 'house';
      if (path.startsWith('/static/sf')) return 'sf.js';
      if (path.startsWith('/static')) return 'app/lib.js';
      if (path.startsWith('/img')) return `${image.timestamp}/${image.md5}`;
      return 'x';
    }
    if (name === 'timestamp') return image.timestamp;
    if (name === 'file') return image.md5;
    if (name === 'sha256') return 'a'.repeat(64);
    if (name === 'ratingUser') return rater.username;
    if (name === 'replyId') return values.replyId;
    if (name === 'id') return path.startsWith('/apps/api/tokens') ? values.tokenId : path.startsWith('/apps/api/reports') ? values.reportId : PLUGIN;
    return 'x';
  });
}

// Hostile values. Query and path values go in as written (already escaped, or raw
// bytes: the lone surrogate U+D800 as the three bytes a careless encoder writes).
const RAW_SURROGATE = '\u00ed\u00a0\u0080';
const QUERY_VALUES = ['%00', 'a%00b', '%ED%A0%80', `a${RAW_SURROGATE}b`, '%ED%B0%80x', '%F0%9F', '%FF%FE', '%', 'a'.repeat(10 * 1024), 'a'.repeat(7000), '%E4%B8%AD'.repeat(780), '-1', '1e999', '[]'];
const PATH_VALUES = ['%00', 'a%00b', '%ED%A0%80', RAW_SURROGATE, 'a'.repeat(10 * 1024), 'a'.repeat(7000), '..', '%2e%2e%2f'];
const TEN_KB = 'x'.repeat(10 * 1024);
const FIELD_VALUES: unknown[] = [null, true, 0, -1, 1.5, 1e308, '', 'a\u0000b', '\ud800', 'a\udc00b', TEN_KB, [], ['a', {}], {}, { a: { b: { c: [1] } } }];
const DEEP = 100_000;
const BODIES = ['null', '[]', '[{}]', '[null]', '0', '-1e999', '1e999', '"text"', '"\\u0000"', '"\\ud800"', 'true', '{"a":{"b":{"c":{"d":[{"e":null}]}}}}', '{"__proto__":{"admin":true},"constructor":null}', '['.repeat(DEEP) + ']'.repeat(DEEP), '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)];

/** A body each JSON route accepts, so that one field at a time can be made hostile. */
const BASE_BODIES: Record<string, Record<string, unknown>> = {
  'POST /apps/auth/password': { username: 'sweep-nobody', password: 'wrong password' },
  'POST /apps/api/plugins': { id: 'sweep-new', name: 'New', version: '1.0.0', download: 'https://downloads.example.com/new.zip' },
  'PATCH /apps/api/plugins/:id': { description: 'changed' },
  'POST /apps/api/plugins/:id/review': { action: 'reject', reason: 'no' },
  'POST /apps/api/reports': { target: { type: 'rating', plugin: PLUGIN, user: 'sweep-rater' }, reason: 'spam', note: 'x' },
  'POST /apps/api/reports/:id/resolve': { action: 'dismiss', reason: 'ok' },
  'POST /apps/api/notifications/read': { ids: [1, 2] },
  'PUT /apps/api/webhook': { url: 'https://203.0.113.7/hook', rotateSecret: false },
  'PUT /apps/api/plugins/:id/ratings': { stars: 5, comment: 'good' },
  'POST /apps/api/plugins/:id/ratings/:ratingUser/replies': { body: 'reply' },
  'POST /apps/api/tokens': { name: 'n', scopes: ['plugins:write'], expiresInDays: 1 },
};

/** Property names of a request body schema ($ref and allOf followed), and `target.*` style nested ones. */
function bodyFields(doc: Json, schema: Json, prefix = ''): string[] {
  if (!schema) return [];
  if (schema.$ref) return bodyFields(doc, schema.$ref.split('/').slice(1).reduce((node: Json, key: string) => node[key], doc), prefix);
  const names: string[] = [];
  for (const part of schema.allOf ?? []) names.push(...bodyFields(doc, part, prefix));
  for (const name of Object.keys(schema.properties ?? {})) names.push(prefix + name);
  return names;
}

function withField(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  const keys = path.split('.');
  let node: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[keys.at(-1)!] = value;
  return copy;
}

type Fixtures = Awaited<ReturnType<typeof putFixturesBack>>;

interface Case {
  server: TestServer;
  method: string;
  /** Built just before sending: a put-back reply, report or token has a new id. */
  target: (fixtures: Fixtures) => string;
  headers: Record<string, string>;
  body?: string;
  what: string;
}

let fixtures: Fixtures | undefined;
let sinceFixtures = 0;

/**
 * Sends the cases, four at a time (the machine is shared), writes one at a time.
 * The fixtures are put back after a write that acted (a 2xx or 3xx) and every 20
 * requests (limits count failed requests too), not before every request: the
 * sweep would spend most of its time there.
 */
async function run(cases: Case[], failures: string[]): Promise<void> {
  const width = cases.every((c) => c.method === 'GET') ? 4 : 1;
  for (let at = 0; at < cases.length; at += width) {
    if (fixtures === undefined || sinceFixtures >= 20) {
      fixtures = await putFixturesBack();
      sinceFixtures = 0;
    }
    const batch = cases.slice(at, at + width);
    sinceFixtures += batch.length;
    const current = fixtures;
    await Promise.all(batch.map(async (c) => {
      const answer = await send(c.server, c.method, c.target(current), c.headers, c.body);
      if (answer.status >= 500 || answer.status < 100) failures.push(`${c.what}: ${answer.status} ${answer.body.slice(0, 200)}`);
      if (c.method !== 'GET' && answer.status < 400) fixtures = undefined;
    }));
  }
}

const describe = (value: unknown) => {
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 20)}…(${text.length})` : text;
};

function servicesAndRoutes(): Array<{ server: TestServer; doc: Json; routes: Array<{ method: string; path: string }> }> {
  return [
    { server: site, doc: SITE_OPENAPI, routes: siteRoutes },
    { server: imghost, doc: IMGHOST_OPENAPI, routes: imghostRoutes },
  ];
}

function callersFor(doc: Json, route: string, server: TestServer): Caller[] {
  if (server === imghost) return [{ what: 'anonymous', headers: {} }];
  const op = operations(doc).find((candidate) => candidate.route === route);
  const takesToken = JSON.stringify(op?.operation.security ?? []).includes('apiToken');
  // Logout would end the administrator's session for every request after it.
  const cookie = route.includes('/apps/auth/logout') ? leaver.cookie : admin.cookie;
  const callers: Caller[] = [{ what: 'administrator', headers: { cookie } }];
  if (takesToken) callers.push({ what: "the author's token", headers: { authorization: `Bearer ${authorToken}` } });
  return callers;
}

/** The sweep ran as an administrator throughout (no request ended that session), and the token still works. */
async function assertStillAdministrator(): Promise<void> {
  const me = await send(site, 'GET', '/apps/api/me', { cookie: admin.cookie });
  assert.is(JSON.parse(me.body).user?.admin, true, me.body);
  await putFixturesBack();
  const withToken = await send(site, 'PATCH', `/apps/api/plugins/${PLUGIN}`, { authorization: `Bearer ${authorToken}`, 'content-type': 'application/json' }, '{}');
  assert.is(withToken.status, 200, withToken.body);
}

test('regression: input that reaches a 500 (POST /apps/api/tokens with null, GET /apps/api/audit?user=a%00b)', async () => {
  const token = await send(site, 'POST', '/apps/api/tokens', { cookie: admin.cookie, 'content-type': 'application/json' }, 'null');
  assert.is(token.status, 400, token.body);
  assert.is(JSON.parse(token.body).code, 'BAD_REQUEST');
  const audit = await send(site, 'GET', '/apps/api/audit?user=a%00b', { cookie: admin.cookie });
  assert.is(audit.status, 400, audit.body);
  assert.equal([JSON.parse(audit.body).code, JSON.parse(audit.body).field], ['BAD_REQUEST', 'user']);
});

test('no route answers 500 to any query value (NUL, lone surrogates, 10 KB) or path value', async () => {
  const failures: string[] = [];
  let sent = 0;
  for (const { server, doc, routes } of servicesAndRoutes()) {
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      const op = operations(doc).find((candidate) => candidate.route === key);
      const params = [...new Set([...(op?.operation.parameters ?? []).filter((p: Json) => p.in === 'query').map((p: Json) => p.name as string), 'x'])];
      const path = (f: Fixtures) => fill(route.path, f);
      const cases: Case[] = [];
      for (const caller of callersFor(doc, key, server)) {
        const headers = { ...caller.headers, ...(route.method === 'GET' ? {} : { 'content-type': 'application/json' }) };
        const body = route.method === 'GET' ? undefined : JSON.stringify(BASE_BODIES[key] ?? {});
        for (const name of params) {
          for (const value of QUERY_VALUES) {
            cases.push({ server, method: route.method, target: (f) => `${path(f)}?${name}=${value}`, headers, body, what: `${key} ?${name}=${describe(value)} as ${caller.what}` });
          }
          cases.push({ server, method: route.method, target: (f) => `${path(f)}?${name}=1&${name}=2`, headers, body, what: `${key} ?${name} twice as ${caller.what}` });
        }
        cases.push({ server, method: route.method, target: (f) => `${path(f)}?%00=1&=&&==&${RAW_SURROGATE}=1`, headers, body, what: `${key} odd names as ${caller.what}` });
        if (/[:*]/.test(route.path)) {
          for (const value of PATH_VALUES) {
            cases.push({ server, method: route.method, target: (f) => fill(route.path, f, value), headers, body, what: `${key} path ${describe(value)} as ${caller.what}` });
          }
        }
        // One parameter at a time, the others working: a bad plugin id no longer hides
        // what the route does with a bad `:version` behind it (a NUL reached PostgreSQL there).
        const names = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((match) => match[1]!);
        if (names.length > 1) {
          for (const name of names) {
            for (const value of PATH_VALUES) {
              cases.push({ server, method: route.method, target: (f) => fill(route.path, f, value, name), headers, body, what: `${key} :${name} ${describe(value)} as ${caller.what}` });
            }
          }
        }
      }
      await run(cases, failures);
      sent += cases.length;
    }
  }
  assert.equal(failures, [], `${failures.length} of ${sent} requests failed`);
  assert.ok(sent > 1500, `${sent} requests`);
  await assertStillAdministrator();
});

test('no route answers 500 to any JSON body (null, arrays, numbers, strings, nesting) or field value', async () => {
  const failures: string[] = [];
  let sent = 0;
  for (const { server, doc, routes } of servicesAndRoutes()) {
    for (const route of routes.filter((candidate) => candidate.method !== 'GET')) {
      const key = `${route.method} ${route.path}`;
      const op = operations(doc).find((candidate) => candidate.route === key);
      const schema = op?.operation.requestBody?.content?.['application/json']?.schema;
      const fields = bodyFields(doc, schema);
      if (fields.includes('target')) fields.push('target.type', 'target.plugin', 'target.user');
      const base = BASE_BODIES[key] ?? {};
      for (const caller of callersFor(doc, key, server)) {
        const bodies = [...BODIES.map((body) => ({ body, what: describe(body) }))];
        for (const field of fields) {
          for (const value of FIELD_VALUES) bodies.push({ body: JSON.stringify(withField(base, field, value)), what: `${field}=${describe(value)}` });
        }
        const headers = { ...caller.headers, 'content-type': 'application/json' };
        await run(bodies.map(({ body, what }) => ({ server, method: route.method, target: (f: Fixtures) => fill(route.path, f), headers, body, what: `${key} body ${what} as ${caller.what}` })), failures);
        sent += bodies.length;
      }
    }
  }
  assert.equal(failures, [], `${failures.length} of ${sent} requests failed`);
  assert.ok(sent > 1000, `${sent} requests`);
  await assertStillAdministrator();
});

test.run();
