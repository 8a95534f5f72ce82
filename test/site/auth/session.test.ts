// Sessions: lifetime in PostgreSQL, logout, expiry and purge, the cookie, and the
// cross-site check on state-changing requests.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../../src/db/pool.js';
import { ownOrigins } from '../../../src/services/site/auth/cross-site.js';
import { createSession, hashToken, purgeExpiredSessions } from '../../../src/services/site/auth/sessions.js';
import { upsertProviderUser } from '../../../src/services/site/auth/users.js';
import { callback, loginThroughIdp, me, setCookie, setCookieLine, startFakeIdp, startLogin, type FakeIdp } from '../../helpers/fake-idp.js';
import { rawRequest } from '../../helpers/raw-http.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';

const OWN_ORIGIN = 'http://site.test';
let idp: FakeIdp;
let site: TestServer;

test.before(async () => {
  idp = await startFakeIdp();
  site = await startTestSite(idp.env());
});
test.after(async () => {
  await site.close();
  await idp.close();
  await closeTestSql();
});

async function sessionFor(username: string, ttlSql = "interval '30 days'"): Promise<{ cookie: string; token: string }> {
  const user = await upsertProviderUser(testSql(), { subject: `s:${username}`, username, usernameClaim: 'preferred_username', avatar: '' }, []);
  const token = await createSession(testSql(), user.id);
  if (ttlSql !== "interval '30 days'") {
    await testSql().unsafe(`update sessions set expires_at = now() + ${ttlSql} where token_hash = $1`, [hashToken(token)]);
  }
  return { cookie: `sid=${token}`, token };
}

/** Counts every query that goes through the pool (runNamed uses sql.unsafe). */
function countingSql(sql: Sql): { sql: Sql; count(): number } {
  let count = 0;
  const proxy = new Proxy(sql, {
    apply(target, thisArg, args) {
      count++;
      return Reflect.apply(target as never, thisArg, args);
    },
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'unsafe' && typeof value === 'function') {
        return (...args: unknown[]) => {
          count++;
          return value.apply(target, args);
        };
      }
      return value;
    },
  });
  return { sql: proxy, count: () => count };
}

test('a session survives a restart of the site', async () => {
  const { sessionCookie } = await loginThroughIdp(site.url);
  await site.close();
  site = await startTestSite(idp.env());
  assert.equal((await me(site.url, sessionCookie)).user?.username, 'alice');
});

test('POST logout deletes the session server-side; the replayed cookie is logged out', async () => {
  const { sessionCookie } = await loginThroughIdp(site.url);
  const response = await fetch(site.url + '/apps/auth/logout', { method: 'POST', headers: { cookie: sessionCookie, origin: OWN_ORIGIN } });
  assert.is(response.status, 200);
  assert.equal(await response.json(), { success: true });
  assert.match(setCookieLine(response, 'sid') ?? '', /^sid=; Max-Age=0; /);
  assert.equal(await me(site.url, sessionCookie), { success: true, loggedIn: false, user: null } as never);
  const token = sessionCookie.slice('sid='.length);
  const rows = await testSql().unsafe('select 1 from sessions where token_hash = $1', [hashToken(token)]);
  assert.is(rows.length, 0);
});

test('POST logout without a session still answers success', async () => {
  const response = await fetch(site.url + '/apps/auth/logout', { method: 'POST' });
  assert.is(response.status, 200);
  assert.equal(await response.json(), { success: true });
});

test('GET logout ends the session and redirects to the plugin store', async () => {
  const { sessionCookie } = await loginThroughIdp(site.url);
  // rawRequest, not fetch: fetch sends Sec-Fetch-Mode: cors whatever it is told.
  const response = await rawRequest(site.url, 'GET', '/apps/auth/logout', { headers: { host: 'site.test', cookie: sessionCookie, ...LINK_FOLLOWED } });
  assert.is(response.status, 302);
  assert.is(response.headers.location, '/apps/');
  assert.match(String(response.headers['set-cookie']), /^sid=;.*Max-Age=0/);
  assert.is((await me(site.url, sessionCookie)).loggedIn, false);
});

/** What a browser sends when the user follows a link in our own pages. */
const LINK_FOLLOWED = { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', 'sec-fetch-site': 'same-origin', 'sec-fetch-user': '?1' };

// A plugin icon or screenshot of /apps/auth/logout was fetched, with the cookie,
// by every browser showing the plugin (the review queue included): GET logout acts
// only for the user's own top-level navigation.
const getLogoutCases: Array<{ what: string; headers: Record<string, string>; acts: boolean }> = [
  { what: 'an <img> on our own page', headers: { 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image', 'sec-fetch-site': 'same-origin' }, acts: false },
  { what: 'a CSS background image', headers: { 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image', 'sec-fetch-site': 'same-origin' }, acts: false },
  { what: 'fetch() from our page', headers: { 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty', 'sec-fetch-site': 'same-origin' }, acts: false },
  { what: 'an iframe of our page', headers: { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe', 'sec-fetch-site': 'same-origin' }, acts: false },
  { what: 'a link prefetch', headers: { 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'empty', 'sec-purpose': 'prefetch' }, acts: false },
  { what: 'a speculative prefetch of a navigation', headers: { ...LINK_FOLLOWED, 'sec-purpose': 'prefetch' }, acts: false },
  { what: 'a link on another site', headers: { ...LINK_FOLLOWED, 'sec-fetch-site': 'cross-site' }, acts: false },
  { what: 'a <script> on our own page', headers: { 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'script', 'sec-fetch-site': 'same-origin' }, acts: false },
  { what: 'an <img> from a browser without Sec-Fetch-Dest (Chrome 76-79)', headers: { 'sec-fetch-mode': 'no-cors', 'sec-fetch-site': 'same-origin' }, acts: false },
  { what: 'an <img> on a sibling subdomain', headers: { 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image', 'sec-fetch-site': 'same-site' }, acts: false },
  { what: 'a navigation by another site\'s redirect', headers: { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', 'sec-fetch-site': 'cross-site' }, acts: false },
  { what: 'a link followed in our pages', headers: LINK_FOLLOWED, acts: true },
  { what: 'a link followed in our pages, headers in upper case', headers: { 'sec-fetch-mode': 'NAVIGATE', 'sec-fetch-dest': 'Document', 'sec-fetch-site': 'Same-Origin' }, acts: true },
  { what: 'a link on a sibling subdomain (same-site)', headers: { ...LINK_FOLLOWED, 'sec-fetch-site': 'same-site' }, acts: true },
  { what: 'the address bar or a bookmark', headers: { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', 'sec-fetch-site': 'none' }, acts: true },
  { what: 'no Fetch Metadata (an old browser)', headers: {}, acts: true },
  { what: 'curl', headers: { 'user-agent': 'curl/8.5.0', accept: '*/*' }, acts: true },
  // Node's fetch() adds Sec-Fetch-Mode: cors alone to every request; a browser
  // never sends it without Sec-Fetch-Site, so it is no browser's Fetch Metadata.
  { what: 'a script (Node fetch: Sec-Fetch-Mode cors alone)', headers: { 'sec-fetch-mode': 'cors', 'user-agent': 'node', accept: '*/*' }, acts: true },
];

for (const c of getLogoutCases) {
  test(`regression: any page can log its viewers out (GET logout by ${c.what} → ${c.acts ? '302, logged out' : '403, session kept'})`, async () => {
    const { cookie } = await sessionFor('logout-viewer');
    // rawRequest, not fetch: fetch adds Sec-Fetch-Mode of its own.
    const response = await rawRequest(site.url, 'GET', '/apps/auth/logout', { headers: { host: 'site.test', cookie, ...c.headers } });
    assert.is(response.status, c.acts ? 302 : 403, response.body);
    if (c.acts) {
      assert.is(response.headers.location, '/apps/');
    } else {
      assert.is(JSON.parse(response.body).code, 'FORBIDDEN');
      assert.is(response.headers['set-cookie'], undefined, 'the cookie is not cleared');
    }
    assert.is((await me(site.url, cookie)).loggedIn, !c.acts);
  });
}

test('regression: GET logout from a script without a browser\'s Fetch Metadata (Node fetch) logs out and returns to the store', async () => {
  const { cookie } = await sessionFor('logout-script');
  const response = await fetch(site.url + '/apps/auth/logout', { headers: { cookie }, redirect: 'manual' });
  assert.is(response.status, 302, await response.text());
  assert.is(response.headers.get('location'), '/apps/');
  assert.match(setCookieLine(response, 'sid') ?? '', /^sid=; Max-Age=0; /);
  assert.is((await me(site.url, cookie)).loggedIn, false);
});

const crossSiteCases: Array<{ what: string; method: string; path: string; headers: Record<string, string>; status: number }> = [
  { what: 'foreign Origin on logout', method: 'POST', path: '/apps/auth/logout', headers: { origin: 'http://evil.example' }, status: 403 },
  { what: 'Origin null', method: 'POST', path: '/apps/auth/logout', headers: { origin: 'null' }, status: 403 },
  { what: 'same host, other port', method: 'POST', path: '/apps/auth/logout', headers: { origin: 'http://site.test:8080' }, status: 403 },
  { what: 'same host, https', method: 'POST', path: '/apps/auth/logout', headers: { origin: 'https://site.test' }, status: 403 },
  { what: 'Sec-Fetch-Site cross-site without Origin', method: 'POST', path: '/apps/auth/logout', headers: { 'sec-fetch-site': 'cross-site' }, status: 403 },
  { what: 'Sec-Fetch-Site same-site without Origin', method: 'POST', path: '/apps/auth/logout', headers: { 'sec-fetch-site': 'same-site' }, status: 403 },
  { what: 'foreign Origin on DELETE of an unknown path (before routing)', method: 'DELETE', path: '/apps/api/nothing', headers: { origin: 'http://evil.example' }, status: 403 },
  { what: 'foreign Origin on PUT', method: 'PUT', path: '/apps/api/nothing', headers: { origin: 'http://evil.example' }, status: 403 },
  { what: 'foreign Origin on PATCH', method: 'PATCH', path: '/apps/api/nothing', headers: { origin: 'http://evil.example' }, status: 403 },
  {
    what: 'foreign Origin is refused before the body is read (403, not 415)',
    method: 'POST',
    path: '/apps/auth/password',
    headers: { origin: 'http://evil.example', 'content-type': 'text/plain' },
    status: 403,
  },
  { what: 'own Origin', method: 'POST', path: '/apps/auth/logout', headers: { origin: OWN_ORIGIN }, status: 200 },
  { what: 'own Origin in upper case', method: 'POST', path: '/apps/auth/logout', headers: { origin: 'HTTP://SITE.TEST' }, status: 200 },
  { what: 'Sec-Fetch-Site same-origin without Origin', method: 'POST', path: '/apps/auth/logout', headers: { 'sec-fetch-site': 'same-origin' }, status: 200 },
  { what: 'neither Origin nor Sec-Fetch-Site (non-browser client)', method: 'POST', path: '/apps/auth/logout', headers: {}, status: 200 },
];

for (const c of crossSiteCases) {
  test(`cross-site check with the session cookie: ${c.what} → ${c.status}`, async () => {
    const { cookie } = await sessionFor('csrf-user');
    const response = await fetch(site.url + c.path, { method: c.method, headers: { cookie, ...c.headers }, body: c.method === 'POST' ? 'x' : undefined });
    assert.is(response.status, c.status);
    if (c.status === 403) {
      assert.is(((await response.json()) as { code: string }).code, 'FORBIDDEN');
      assert.is((await me(site.url, cookie)).loggedIn, true, 'the refused request changed nothing');
    }
  });
}

test('ownOrigins: PUBLIC_URL\'s origin, and on loopback the other names of the loopback interface with the same scheme and port', () => {
  assert.equal([...ownOrigins('http://site.test/')], ['http://site.test']);
  assert.equal([...ownOrigins('https://Store.Example:8443/apps')], ['https://store.example:8443']);
  assert.equal([...ownOrigins('http://localhost:3000')].sort(), ['http://127.0.0.1:3000', 'http://[::1]:3000', 'http://localhost:3000']);
  assert.equal([...ownOrigins('http://127.0.0.1')].sort(), ['http://127.0.0.1', 'http://[::1]', 'http://localhost']);
});

// Regression: `npm start` prints http://127.0.0.1:3000 while PUBLIC_URL defaults to
// http://localhost:3000, so a browser at the printed address had every logged-in
// write (upload, logout, rating) refused as cross-site.
test('cross-site check on a loopback PUBLIC_URL: 127.0.0.1 and localhost on its port are the same site, other ports are not', async () => {
  const loopback = await startTestSite({ ...idp.env(), PUBLIC_URL: 'http://localhost:3999' });
  try {
    const cases = [
      { origin: 'http://127.0.0.1:3999', status: 200 },
      { origin: 'http://localhost:3999', status: 200 },
      { origin: 'http://[::1]:3999', status: 200 },
      { origin: 'http://127.0.0.1:4000', status: 403 },
      { origin: 'https://127.0.0.1:3999', status: 403 },
      { origin: 'http://127.0.0.2:3999', status: 403 },
    ];
    for (const c of cases) {
      const { cookie } = await sessionFor('csrf-loopback');
      const response = await fetch(loopback.url + '/apps/auth/logout', { method: 'POST', headers: { cookie, origin: c.origin } });
      assert.is(response.status, c.status, c.origin);
    }
  } finally {
    await loopback.close();
  }
  // The test site's PUBLIC_URL is not loopback: a loopback origin is another site there.
  const { cookie } = await sessionFor('csrf-not-loopback');
  assert.is((await fetch(site.url + '/apps/auth/logout', { method: 'POST', headers: { cookie, origin: 'http://localhost' } })).status, 403);
});

test('cross-site check: a foreign Origin without the session cookie is let through', async () => {
  const response = await fetch(site.url + '/apps/auth/logout', { method: 'POST', headers: { origin: 'http://evil.example' } });
  assert.is(response.status, 200);
});

test('cross-site check: a GET with a foreign Origin is not state-changing and is served', async () => {
  const { cookie } = await sessionFor('csrf-get');
  const response = await fetch(site.url + '/apps/api/me', { headers: { cookie, origin: 'http://evil.example' } });
  assert.is(response.status, 200);
  assert.is(((await response.json()) as { loggedIn: boolean }).loggedIn, true);
});

test('an expired session is not accepted, its cookie is cleared, and the purge removes it', async () => {
  const expired = await sessionFor('expiring', "- interval '1 minute'");
  const live = await sessionFor('living');
  const response = await fetch(site.url + '/apps/api/me', { headers: { cookie: expired.cookie } });
  assert.is(((await response.json()) as { loggedIn: boolean }).loggedIn, false);
  assert.match(setCookieLine(response, 'sid') ?? '', /Max-Age=0/);
  const purged = await purgeExpiredSessions(testSql());
  assert.ok(purged >= 1);
  const left = await testSql().unsafe('select token_hash from sessions where token_hash in ($1, $2)', [
    hashToken(expired.token),
    hashToken(live.token),
  ]);
  assert.is(left.length, 1);
  assert.is((await me(site.url, live.cookie)).loggedIn, true);
});

test('a request without the session cookie does not query the database; one with it queries once', async () => {
  const counting = countingSql(testSql());
  const countingSite = await startTestSite(idp.env(), counting.sql);
  try {
    const { cookie } = await sessionFor('counted');
    let before = counting.count();
    assert.is((await me(countingSite.url)).loggedIn, false);
    assert.is(counting.count() - before, 0, 'no cookie, no query');
    await fetch(countingSite.url + '/apps/api/me', { headers: { cookie: 'sid=not-a-token; other=1' } });
    assert.is(counting.count() - before, 0, 'malformed cookie, no query');
    before = counting.count();
    assert.is((await me(countingSite.url, cookie)).loggedIn, true);
    assert.is(counting.count() - before, 1, 'the session is resolved once');
  } finally {
    await countingSite.close();
  }
});

test('under an https PUBLIC_URL the cookies are Secure and the session cookie is __Host-sid', async () => {
  const secureSite = await startTestSite(idp.env({ PUBLIC_URL: 'https://site.test' }));
  try {
    const start = await startLogin(secureSite.url);
    assert.match(setCookieLine(start.response, '__Host-lw_login') ?? '', /; Secure/);
    assert.is(start.authorize.searchParams.get('redirect_uri'), 'https://site.test/apps/auth/callback');
    const { sessionCookie, response } = await loginThroughIdp(secureSite.url, '/apps/x', '__Host-sid');
    const line = setCookieLine(response, '__Host-sid') ?? '';
    assert.match(line, /; Path=\/;/);
    assert.match(line, /; HttpOnly; Secure; SameSite=Lax$/);
    assert.is((await me(secureSite.url, sessionCookie)).loggedIn, true);
    const refused = await fetch(secureSite.url + '/apps/auth/logout', {
      method: 'POST',
      headers: { cookie: sessionCookie, origin: 'http://site.test' },
    });
    assert.is(refused.status, 403, 'http origin is not the https site');
  } finally {
    await secureSite.close();
  }
});

test('regression: the lw_login login-state cookie cannot be planted from a sibling subdomain (__Host- under https)', async () => {
  const secureSite = await startTestSite(idp.env({ PUBLIC_URL: 'https://site.test' }));
  try {
    // What an attacker holds: a valid login state of their own, started on the site.
    const attacker = await startLogin(secureSite.url);
    const line = setCookieLine(attacker.response, '__Host-lw_login') ?? '';
    assert.match(line, /^__Host-lw_login=[A-Za-z0-9_.-]+; Max-Age=600; Expires=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    assert.not.match(line, /Domain=/i);
    assert.is(setCookieLine(attacker.response, 'lw_login'), undefined, 'no unprefixed login cookie');
    const sealed = attacker.loginCookie.slice('__Host-lw_login='.length);

    // A sibling subdomain can set `lw_login` (with Domain=) but never `__Host-lw_login`:
    // the callback only reads the prefixed one.
    const planted = await callback(secureSite.url, `code=c&state=${attacker.state}`, `lw_login=${sealed}`);
    assert.is(planted.status, 400);
    assert.is(((await planted.json()) as { code: string }).code, 'BAD_REQUEST');
    assert.is(setCookie(planted, '__Host-sid'), undefined, 'no session from a planted cookie');

    const own = await callback(secureSite.url, `code=c&state=${attacker.state}`, attacker.loginCookie);
    assert.is(own.status, 302);
    assert.match(setCookieLine(own, '__Host-lw_login') ?? '', /^__Host-lw_login=; Max-Age=0; [^]*Path=\/; HttpOnly; Secure; SameSite=Lax$/);
  } finally {
    await secureSite.close();
  }
});

test('regression: a Cookie header over 8 KiB keeps the session (no silent logout)', async () => {
  const { cookie } = await sessionFor('big-cookie-jar');
  const analytics = Array.from({ length: 3 }, (_, i) => `_tracker${i}=${'t'.repeat(3900)}`).join('; ');
  const header = `${analytics}; ${cookie}`;
  assert.ok(header.length > 8 * 1024);
  assert.is((await me(site.url, header)).loggedIn, true);
});

test('a cookie set on a login answer replaces the stale-cookie clearing on the same answer', async () => {
  const start = await startLogin(site.url);
  const response = await fetch(`${site.url}/apps/auth/callback?code=c&state=${start.state}`, {
    redirect: 'manual',
    headers: { cookie: `${start.loginCookie}; sid=${'A'.repeat(43)}` },
  });
  assert.is(response.status, 302);
  const lines = response.headers.getSetCookie().filter((line) => line.startsWith('sid='));
  assert.is(lines.length, 1);
  assert.is((await me(site.url, setCookie(response, 'sid'))).loggedIn, true);
});

test.run();
