// PostgreSQL cut away under a live site (through a TCP proxy the test can cut):
// visitors keep getting the answers this process holds (lists, details, versions,
// ratings pages, the update check), marked stale in
// Cache-Status (RFC 9211); writes and answers never seen before get 503
// UNAVAILABLE with Retry-After at once; /readyz says 503; all of it ends by
// itself when the database is back (src/db/breaker.ts, src/services/site/kept-answers.ts).
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPool } from '../../../src/db/pool.js';
import { projectRoot } from '../../../src/lib/project-root.js';
import { startPgProxy, type PgProxy } from '../../helpers/pg-proxy.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';
import { insertPlugin, insertRating, testUser, type TestUser } from '../../helpers/store-fixtures.js';
import { manualClock } from '../../helpers/time.js';

/** The breaker decides within 200 ms; the margin is for a loaded test machine. */
const FAST_MS = 200 + 800;

const sql = testSql();
let proxy: PgProxy;
let site: TestServer;
let siteSql: ReturnType<typeof createPool>;
let alice: TestUser;
/** The site's pool clock (db/pool.ts clockOf): an answer's age and an outage's length move when a test says so. */
const clock = manualClock();

const updateCheck = { plugins: [{ id: 'out-one', version: '0.9.0' }] };

const visitorReads = [
  { what: 'the store list', path: '/apps/api/plugins' },
  { what: 'a search', path: '/apps/api/plugins?q=outage' },
  { what: 'a plugin detail', path: '/apps/api/plugins/out-one' },
  { what: "a plugin's versions", path: '/apps/api/plugins/out-one/versions' },
  { what: 'a ratings page', path: '/apps/api/plugins/out-one/ratings?limit=10' },
];

const postUpdates = () =>
  fetch(site.url + '/apps/api/updates', { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.20' }, body: JSON.stringify(updateCheck) });

async function timed(request: () => Promise<Response>): Promise<{ response: Response; ms: number; text: string }> {
  const started = performance.now();
  const response = await request();
  const text = await response.text();
  return { response, ms: performance.now() - started, text };
}

async function cut(): Promise<void> {
  await proxy.stop();
  // The first request after the cut finds it out; everything after is decided at once.
  await fetch(site.url + '/apps/api/plugins?q=first-after-cut');
}

async function waitForRecovery(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await fetch(site.url + '/readyz')).status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.unreachable('the site did not recover by itself');
}

test.before(async () => {
  proxy = await startPgProxy(process.env.TEST_DB_URL!);
  siteSql = createPool(proxy.url, { now: clock.now });
  site = await startTestSite({ TRUST_PROXY: 'true', LAUNCHER_CONFIG: join(projectRoot(), 'config', 'launcher.example.json') }, siteSql);
  alice = await testUser(sql, 'out-alice');
  await insertPlugin(sql, 'out-one', alice, 'approved', { description: 'Survives an outage' });
  await insertRating(sql, 'out-one', await testUser(sql, 'out-rater'), 4, 'Still here');
});
test.after(async () => {
  await site.close();
  await siteSql.end({ timeout: 1 });
  await proxy.stop().catch(() => {});
  await closeTestSql();
});

test('database unreachable: answers seen before are served stale with Cache-Status; fresh ones carry none', async () => {
  const before = new Map<string, string>();
  for (const { path } of visitorReads) {
    const response = await fetch(site.url + path);
    assert.is(response.status, 200, path);
    assert.is(response.headers.get('cache-status'), null, `${path}: a fresh answer says nothing about staleness`);
    before.set(path, await response.text());
  }
  const checked = await postUpdates();
  assert.is(checked.status, 200);
  const checkedBody = await checked.text();

  await cut();
  try {
    for (const { what, path } of visitorReads) {
      const { response, ms, text } = await timed(() => fetch(site.url + path));
      assert.is(response.status, 200, what);
      assert.match(response.headers.get('cache-status') ?? '', /^launcher-web; hit; ttl=-\d+; detail=stale-db-unreachable$/, what);
      assert.is(text, before.get(path), `${what}: the same bytes as before the cut`);
      assert.ok(ms < FAST_MS, `${what}: ${ms} ms`);
    }
    const { response, text } = await timed(postUpdates);
    assert.is(response.status, 200, 'the update check');
    assert.match(response.headers.get('cache-status') ?? '', /detail=stale-db-unreachable/);
    assert.is(response.headers.get('access-control-allow-origin'), '*');
    assert.is(text, checkedBody);
    // The launcher's own document never needed the database.
    assert.is((await fetch(site.url + '/api/info')).status, 200);
  } finally {
    await proxy.start();
  }
  await waitForRecovery();
});

// Defect (acceptance check, 26 Nov): with PostgreSQL frozen (no error, no answer),
// every visitor read waited 5-9 s (the query's deadline, then the breaker's
// confirming probe) before its kept answer was served stale.
test('database hung: visitors get what this process holds within 200 ms, not after the query deadline', async () => {
  for (const { path } of visitorReads) assert.is((await fetch(site.url + path)).status, 200, path);
  assert.is((await postUpdates()).status, 200);
  proxy.hang();
  try {
    for (const { what, path } of visitorReads) {
      const { response, ms } = await timed(() => fetch(site.url + path));
      assert.is(response.status, 200, what);
      assert.match(response.headers.get('cache-status') ?? '', /detail=stale-db-unreachable/, what);
      assert.ok(ms < FAST_MS, `${what}: ${Math.round(ms)} ms`);
    }
    const { response, ms } = await timed(postUpdates);
    assert.is(response.status, 200, 'the update check');
    assert.ok(ms < FAST_MS, `the update check: ${Math.round(ms)} ms`);
  } finally {
    proxy.resume();
    await waitForRecovery();
  }
  const fresh = await fetch(site.url + '/apps/api/plugins/out-one');
  assert.is(fresh.headers.get('cache-status'), null, 'fresh again once it answers');
});

test('database unreachable: a plugin page is still the HTML page, for visitors and logged-in users alike', async () => {
  await cut();
  try {
    for (const headers of [{}, { cookie: alice.cookie }] as Array<Record<string, string>>) {
      const response = await fetch(site.url + '/apps/plugin/out-one', { headers });
      assert.is(response.status, 200, JSON.stringify(headers));
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(await response.text(), /<script/);
    }
  } finally {
    await proxy.start();
    await waitForRecovery();
  }
});

// Defect: the visitors' answers were bounded at 256 entries, so in a store of 2000
// plugins a detail or ratings page answered minutes before had been pushed out by
// others and got 503 during an outage (a 3-minute soak: 16 such reads).
test('database unreachable: an answer seen before 300 others of the same kind is still served stale', async () => {
  const kept = ['/apps/api/plugins/out-one', '/apps/api/plugins/out-one/ratings?limit=10'];
  for (const path of kept) assert.is((await fetch(site.url + path)).status, 200, path);
  for (let n = 0; n < 300; n++) {
    const others = [`/apps/api/plugins?q=filler-${n}`, `/apps/api/plugins/out-one/ratings?limit=10&offset=${n + 1}`];
    for (const path of others) assert.is((await fetch(site.url + path)).status, 200, path);
  }
  await cut();
  try {
    for (const path of kept) {
      const response = await fetch(site.url + path);
      await response.arrayBuffer();
      assert.is(response.status, 200, path);
      assert.ok(response.headers.get('cache-status')?.includes('stale'), path);
    }
  } finally {
    await proxy.start();
    await waitForRecovery();
  }
});

// Defect: during an outage a visitor was served the answer kept for the question
// whatever its generation, so a plugin hidden after the answer was built (pulled for
// malware, nobody asked about it again on this process) came back as a 200, and the
// Cache-Status ttl counted from the outage, not from when the answer was last current.
test('database unreachable: a kept answer about a plugin hidden since is not served stale (503), one still current is', async () => {
  await insertPlugin(sql, 'out-hidden', alice, 'approved');
  await insertRating(sql, 'out-hidden', await testUser(sql, 'out-rater-2'), 5, 'Fine then');
  const aboutHidden = ['/apps/api/plugins/out-hidden', '/apps/api/plugins/out-hidden/ratings?limit=10'];
  for (const path of aboutHidden) assert.is((await fetch(site.url + path)).status, 200, path);
  await sql`update plugins set status = 'rejected' where id = 'out-hidden'`;
  // Another visitor's question reads the generation the hiding moved (this process now knows of the change).
  const current = '/apps/api/plugins?q=still-current';
  assert.is((await fetch(site.url + current)).status, 200);
  clock.advance(5_000);
  await cut();
  try {
    for (const path of aboutHidden) {
      const response = await fetch(site.url + path);
      const body = (await response.json()) as { code?: string };
      assert.is(response.status, 503, path);
      assert.is(body.code, 'UNAVAILABLE', path);
    }
    const response = await fetch(site.url + current);
    await response.arrayBuffer();
    assert.is(response.status, 200, 'an answer of the generation last read');
    // Last confirmed current 5 s before the cut: the ttl says so, not the time since the cut.
    assert.match(response.headers.get('cache-status') ?? '', /; ttl=-5;/);
  } finally {
    await proxy.start();
    await waitForRecovery();
  }
});

// Defect: only answers of the STORE generation last read were served stale, and
// that moves with every install click and rating (the soak: several a second), so
// almost nothing kept was served during an outage (89 reads the process had
// answered got 503 in a 30-minute soak). What matters is what a visitor may see:
// the visibility generation (sql/008).
test('database unreachable: answers built before install clicks and ratings are still served stale', async () => {
  await insertPlugin(sql, 'out-busy', alice, 'approved', { description: 'Clicked a lot' });
  const kept = ['/apps/api/plugins/out-busy', '/apps/api/plugins/out-busy?include=related', '/apps/api/plugins?q=clicked'];
  const before = new Map<string, string>();
  for (const path of kept) {
    const response = await fetch(site.url + path);
    assert.is(response.status, 200, path);
    before.set(path, await response.text());
  }
  const click = await fetch(site.url + '/apps/api/plugins/out-busy/install-click', { method: 'POST', headers: { 'x-forwarded-for': '198.51.100.30' } });
  assert.is(click.status, 200);
  await insertRating(sql, 'out-busy', await testUser(sql, 'out-rater-3'), 2, 'Meh');
  // This process reads the generations the click and the rating moved.
  assert.is((await fetch(site.url + '/apps/api/plugins?q=read-after-click')).status, 200);
  await cut();
  try {
    for (const path of kept) {
      const response = await fetch(site.url + path);
      const text = await response.text();
      assert.is(response.status, 200, `${path}: ${text}`);
      assert.match(response.headers.get('cache-status') ?? '', /detail=stale-db-unreachable/, path);
      assert.is(text, before.get(path), `${path}: the answer built before the click`);
    }
  } finally {
    await proxy.start();
    await waitForRecovery();
  }
});

const visibilityChanges = [
  { what: 'a plugin deleted', plugin: 'out-gone', change: () => sql`delete from plugins where id = 'out-gone'` },
  { what: 'a plugin unapproved', plugin: 'out-pending', change: () => sql`update plugins set status = 'pending' where id = 'out-pending'` },
  { what: "a plugin's rating hidden", plugin: 'out-rated', change: () => sql`update plugin_ratings set hidden = true where plugin_id = 'out-rated'` },
  // Stale answers served a replaced (say compromised) download and its hash (sql/009).
  {
    what: "a plugin's download replaced",
    plugin: 'out-download',
    change: () => sql`update plugins set download = 'https://example.com/clean.zip', sha256 = ${'a'.repeat(64)} where id = 'out-download'`,
  },
  { what: "a plugin's text edited by a moderator", plugin: 'out-edited', change: () => sql`update plugins set long_description = 'Removed by a moderator.' where id = 'out-edited'` },
];

test('database unreachable: no answer built before a change of what visitors may see is served stale', async () => {
  for (const { plugin } of visibilityChanges) {
    await insertPlugin(sql, plugin, alice, 'approved');
    await insertRating(sql, plugin, await testUser(sql, `${plugin}-rater`), 1, 'Spam spam spam');
  }
  for (const { what, plugin, change } of visibilityChanges) {
    const paths = [`/apps/api/plugins/${plugin}`, `/apps/api/plugins/${plugin}/ratings?limit=10`];
    for (const path of paths) assert.is((await fetch(site.url + path)).status, 200, `${what}: ${path}`);
    await change();
    assert.is((await fetch(site.url + `/apps/api/plugins?q=after-${plugin}`)).status, 200);
    await cut();
    try {
      for (const path of paths) {
        const response = await fetch(site.url + path);
        const body = (await response.json()) as { code?: string };
        assert.is(response.status, 503, `${what}: ${path}`);
        assert.is(body.code, 'UNAVAILABLE', `${what}: ${path}`);
      }
    } finally {
      await proxy.start();
      await waitForRecovery();
    }
  }
});

test('database unreachable: writes and answers never seen get 503 UNAVAILABLE with Retry-After, fast; /readyz is 503', async () => {
  await cut();
  try {
    const cases = [
      { what: 'a list never asked', request: () => fetch(site.url + '/apps/api/plugins?q=never-asked') },
      { what: 'a detail never asked', request: () => fetch(site.url + '/apps/api/plugins/out-never') },
      { what: 'a ratings page never asked', request: () => fetch(site.url + '/apps/api/plugins/out-one/ratings?offset=5') },
      {
        what: 'an update check never asked',
        request: () => fetch(site.url + '/apps/api/updates', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ plugins: [{ id: 'out-never', version: '1' }] }) }),
      },
      {
        what: 'a plugin submitted',
        request: () =>
          fetch(site.url + '/apps/api/plugins', {
            method: 'POST',
            headers: { 'content-type': 'application/json', cookie: alice.cookie, origin: 'http://site.test' },
            body: JSON.stringify({ id: 'out-two', name: 'Two', version: '1.0.0', description: 'd', download: 'https://downloads.example.com/two.zip' }),
          }),
      },
      {
        what: 'an install click',
        request: () => fetch(site.url + '/apps/api/plugins/out-one/install-click', { method: 'POST', headers: { 'x-forwarded-for': '198.51.100.21' } }),
      },
      { what: 'a logged-in read (the session is in the database)', request: () => fetch(site.url + '/apps/api/plugins', { headers: { cookie: alice.cookie } }) },
    ];
    for (const { what, request } of cases) {
      const { response, ms, text } = await timed(request);
      assert.is(response.status, 503, `${what}: ${text}`);
      assert.is(JSON.parse(text).code, 'UNAVAILABLE', what);
      assert.ok(Number(response.headers.get('retry-after')) > 0, `${what}: Retry-After`);
      assert.is(response.headers.get('cache-status'), null, what);
      assert.ok(ms < FAST_MS, `${what}: ${ms} ms`);
    }
    const ready = await timed(() => fetch(site.url + '/readyz'));
    assert.is(ready.response.status, 503);
    assert.ok(ready.ms < FAST_MS, `/readyz: ${ready.ms} ms`);
    assert.is((await fetch(site.url + '/healthz')).status, 200);
  } finally {
    await proxy.start();
  }
  await waitForRecovery();
});

test('database back: the first good query closes the breaker; kept answers revalidate against the store generation', async () => {
  const path = '/apps/api/plugins/out-one';
  assert.is((await fetch(site.url + path)).status, 200);
  await cut();
  // Changed while this process cannot see it.
  await sql`update plugins set description = 'Changed during the outage' where id = 'out-one'`;
  const stale = await fetch(site.url + path);
  assert.is(stale.status, 200);
  assert.match(stale.headers.get('cache-status') ?? '', /stale/);
  assert.is((await stale.json()).plugin.description, 'Survives an outage');
  await proxy.start();
  await waitForRecovery();
  const fresh = await fetch(site.url + path);
  assert.is(fresh.status, 200);
  assert.is(fresh.headers.get('cache-status'), null);
  assert.is((await fresh.json()).plugin.description, 'Changed during the outage');
  const write = await fetch(site.url + '/apps/api/plugins/out-one/install-click', { method: 'POST', headers: { 'x-forwarded-for': '198.51.100.22' } });
  assert.is(write.status, 200);
});

test('STALE_IF_ERROR_SECONDS bounds how long an answer is served stale', async () => {
  // A process of its own, as in production: its own pool, so its own breaker.
  const shortClock = manualClock();
  const shortSql = createPool(proxy.url, { now: shortClock.now });
  const short = await startTestSite({ STALE_IF_ERROR_SECONDS: '2' }, shortSql);
  try {
    assert.is((await fetch(short.url + '/apps/api/plugins/out-one')).status, 200);
    await proxy.stop();
    await fetch(short.url + '/apps/api/plugins?q=first-after-cut');
    const within = await fetch(short.url + '/apps/api/plugins/out-one');
    assert.is(within.status, 200);
    shortClock.advance(1_999);
    const last = await fetch(short.url + '/apps/api/plugins/out-one');
    await last.arrayBuffer();
    assert.is(last.status, 200, 'a millisecond before the bound');
    shortClock.advance(1);
    const past = await fetch(short.url + '/apps/api/plugins/out-one');
    assert.is(past.status, 503);
    assert.is((await past.json()).code, 'UNAVAILABLE');
    assert.ok(past.headers.get('retry-after'));
  } finally {
    await proxy.start();
    await short.close();
    await shortSql.end({ timeout: 1 });
  }
  await waitForRecovery();
});

// Defect (full test runs, 26 Nov): postgres.js now and then leaves a reconnect of the
// LISTEN connection rejected with nobody to handle it when the database goes away;
// `node dist/site.js` survives that (db/stray-rejections.ts), but a site started in the
// test process did not, and the whole file ended on "connect ECONNREFUSED".
test('database unreachable: a connection failure nobody awaits does not end the process of a test site', async () => {
  const port = Number(new URL(proxy.url).port);
  const stray = Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${port}`), { code: 'ECONNREFUSED', address: '127.0.0.1', port });
  void Promise.reject(stray);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.is((await fetch(site.url + '/healthz')).status, 200);
});

test.run();
