// Login through the identity provider (docs/api.md, "Login and sessions"), against a fake provider, driven like a browser with redirect: 'manual'.
import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLocalAccount } from '../../../src/services/site/auth/local-accounts.js';
import {
  callback,
  CLIENT_ID,
  CLIENT_SECRET,
  DEFAULT_USERINFO,
  loginThroughIdp,
  me,
  setCookie,
  setCookieLine,
  startFakeIdp,
  startAuthOnly,
  startLogin,
  type FakeIdp,
} from '../../helpers/fake-idp.js';
import { closeTestSql, startTestSite, testSql, type TestServer } from '../../helpers/servers.js';

const PUBLIC_URL = 'http://site.test';
let idp: FakeIdp;
let site: TestServer;

const flow = suite('provider login');

flow.before(async () => {
  idp = await startFakeIdp();
  site = await startTestSite(idp.env());
});
flow.before.each(() => idp.reset());
flow.after(async () => {
  await site.close();
  await idp.close();
});

async function sessionCount(): Promise<number> {
  const [row] = await testSql()<{ n: number }[]>`select count(*)::int as n from sessions`;
  return row!.n;
}

async function errorOf(response: Response): Promise<{ success: boolean; code: string; error: string }> {
  return (await response.json()) as never;
}

flow('login redirects to the provider with every OAuth and PKCE parameter, keeping its query', async () => {
  const start = await startLogin(site.url, '/apps/plugins/x');
  const target = start.authorize;
  assert.is(target.origin + target.pathname, idp.url + '/authorize');
  assert.is(target.searchParams.get('tenant'), 'launcher');
  assert.is(target.searchParams.get('response_type'), 'code');
  assert.is(target.searchParams.get('client_id'), CLIENT_ID);
  assert.is(target.searchParams.get('redirect_uri'), PUBLIC_URL + '/apps/auth/callback');
  assert.is(target.searchParams.get('scope'), 'openid profile');
  assert.is(target.searchParams.get('code_challenge_method'), 'S256');
  assert.match(target.searchParams.get('state') ?? '', /^[A-Za-z0-9_-]{43}$/);
  assert.match(target.searchParams.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
  const line = setCookieLine(start.response, 'lw_login')!;
  assert.match(line, /; HttpOnly/);
  assert.match(line, /; SameSite=Lax/);
  assert.match(line, /; Path=\/apps\/auth/);
  assert.match(line, /; Max-Age=600/);
});

flow('happy path: callback exchanges the code, sets the session cookie and returns to return_to', async () => {
  const start = await startLogin(site.url, '/apps/plugins/x?tab=2');
  const response = await callback(site.url, `code=the-code&state=${start.state}`, start.loginCookie);
  assert.is(response.status, 302);
  assert.is(response.headers.get('location'), '/apps/plugins/x?tab=2');
  const sessionLine = setCookieLine(response, 'sid')!;
  assert.ok(sessionLine, 'session cookie set');
  assert.match(sessionLine, /^sid=[A-Za-z0-9_-]{43}; /);
  assert.match(sessionLine, /; Max-Age=2592000/);
  assert.match(sessionLine, /; Path=\/;/);
  assert.match(sessionLine, /; HttpOnly/);
  assert.match(sessionLine, /; SameSite=Lax/);
  assert.not.match(sessionLine, /Secure/);
  assert.match(setCookieLine(response, 'lw_login') ?? '', /Max-Age=0/, 'login cookie cleared');

  const [token] = idp.requestsTo('/token');
  assert.is(token!.method, 'POST');
  assert.is(token!.headers['content-type'], 'application/x-www-form-urlencoded');
  assert.is(token!.headers.accept, 'application/json');
  assert.is(token!.form.get('grant_type'), 'authorization_code');
  assert.is(token!.form.get('code'), 'the-code');
  assert.is(token!.form.get('redirect_uri'), PUBLIC_URL + '/apps/auth/callback');
  assert.is(token!.form.get('client_id'), CLIENT_ID);
  assert.is(token!.form.get('client_secret'), CLIENT_SECRET);
  const verifier = token!.form.get('code_verifier') ?? '';
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  assert.is(challenge, start.authorize.searchParams.get('code_challenge'), 'PKCE verifier matches the challenge');
  const [userinfo] = idp.requestsTo('/userinfo');
  assert.is(userinfo!.headers.authorization, `Bearer ${idp.accessToken}`);

  const cookie = setCookie(response, 'sid')!;
  const answer = await fetch(site.url + '/apps/api/me', { headers: { cookie } });
  assert.is(answer.headers.get('cache-control'), 'no-store');
  assert.equal(await answer.json(), {
    success: true,
    loggedIn: true,
    user: { username: 'alice', avatar: DEFAULT_USERINFO.picture, admin: false },
  });
});

flow('me without a session: loggedIn false, user null', async () => {
  assert.equal(await me(site.url), { success: true, loggedIn: false, user: null } as never);
});

flow('state mismatch gives 400 and no session', async () => {
  const before = await sessionCount();
  const start = await startLogin(site.url);
  const response = await callback(site.url, `code=c&state=${start.state.slice(0, -1)}x`, start.loginCookie);
  assert.is(response.status, 400);
  assert.is((await errorOf(response)).code, 'BAD_REQUEST');
  assert.is(setCookie(response, 'sid'), undefined);
  assert.is(idp.requestsTo('/token').length, 0, 'no code exchange');
  assert.is(await sessionCount(), before);
});

flow('missing state cookie gives 400 and no session', async () => {
  const start = await startLogin(site.url);
  const response = await callback(site.url, `code=c&state=${start.state}`);
  assert.is(response.status, 400);
  assert.is((await errorOf(response)).code, 'BAD_REQUEST');
  assert.is(setCookie(response, 'sid'), undefined);
});

flow('a tampered login cookie gives 400', async () => {
  const start = await startLogin(site.url);
  const [payload, mac] = start.loginCookie.slice('lw_login='.length).split('.');
  const forged = `lw_login=${payload}x.${mac}`;
  const response = await callback(site.url, `code=c&state=${start.state}`, forged);
  assert.is(response.status, 400);
});

flow('a missing state parameter or code gives 400', async () => {
  const start = await startLogin(site.url);
  assert.is((await callback(site.url, 'code=c', start.loginCookie)).status, 400);
  const again = await startLogin(site.url);
  assert.is((await callback(site.url, `state=${again.state}`, again.loginCookie)).status, 400);
});

flow('?error=access_denied from the provider gives 401 LOGIN_DENIED and no session', async () => {
  const start = await startLogin(site.url);
  const response = await callback(site.url, `error=access_denied&state=${start.state}`, start.loginCookie);
  assert.is(response.status, 401);
  assert.is((await errorOf(response)).code, 'LOGIN_DENIED');
  assert.is(setCookie(response, 'sid'), undefined);
});

const upstreamFailures: Array<{ what: string; set: (idp: FakeIdp) => void }> = [
  { what: 'token endpoint 500', set: (p) => (p.token = { status: 500, body: { error: 'server_error' }, delayMs: 0 }) },
  { what: 'token endpoint 400 invalid_grant', set: (p) => (p.token = { status: 400, body: { error: 'invalid_grant' }, delayMs: 0 }) },
  { what: 'token answer without access_token', set: (p) => (p.token = { status: 200, body: { token_type: 'bearer' }, delayMs: 0 }) },
  { what: 'token answer that is not JSON', set: (p) => (p.token = { status: 200, body: '<html>hello</html>', delayMs: 0 }) },
  {
    what: 'token endpoint redirect is not followed',
    set: (p) => (p.token = { status: 302, body: '', delayMs: 0, headers: { location: p.tokenUrl } }),
  },
  { what: 'userinfo 401', set: (p) => (p.userinfo = { status: 401, body: { error: 'invalid_token' }, delayMs: 0 }) },
  { what: 'userinfo without any username field', set: (p) => (p.userinfo = { status: 200, body: { sub: 'subject-9' }, delayMs: 0 }) },
  { what: 'userinfo without sub or id', set: (p) => (p.userinfo = { status: 200, body: { login: 'bob' }, delayMs: 0 }) },
  { what: 'userinfo that is a JSON array', set: (p) => (p.userinfo = { status: 200, body: [DEFAULT_USERINFO], delayMs: 0 }) },
  {
    what: 'userinfo body over 1 MiB',
    set: (p) => (p.userinfo = { status: 200, body: { ...DEFAULT_USERINFO, padding: 'x'.repeat(1024 * 1024) }, delayMs: 0 }),
  },
];

for (const { what, set } of upstreamFailures) {
  flow(`failing provider (${what}) gives 502 UPSTREAM_FAILED and no session`, async () => {
    set(idp);
    const before = await sessionCount();
    const start = await startLogin(site.url);
    const response = await callback(site.url, `code=c&state=${start.state}`, start.loginCookie);
    assert.is(response.status, 502);
    const body = await errorOf(response);
    assert.is(body.code, 'UPSTREAM_FAILED');
    assert.is(body.success, false);
    assert.not.match(body.error, /access_token|at-|invalid_grant|127\.0\.0\.1/);
    assert.is(setCookie(response, 'sid'), undefined);
    assert.is(await sessionCount(), before);
    assert.ok(idp.requestsTo('/token').length <= 1, 'no retry, no redirect followed');
  });
}

const returnToAttacks = [
  { what: 'protocol-relative', value: '//evil.example' },
  { what: 'backslash', value: '/\\evil.example' },
  { what: 'absolute https', value: 'https://evil.example' },
  { what: 'javascript scheme', value: 'javascript:alert(1)' },
  { what: 'percent-encoded backslash, decoded by the query', raw: 'return_to=/%5Cevil.example' },
  { what: 'tab inside the slashes', value: '/\t/evil.example' },
  { what: 'dot segment making a double slash', value: '/.//evil.example' },
  { what: 'empty', value: '' },
  { what: 'over-long', value: '/' + 'a'.repeat(5000) },
];

for (const attack of returnToAttacks) {
  flow(`return_to attack ends at /apps/: ${attack.what}`, async () => {
    const query = attack.raw ?? `return_to=${encodeURIComponent(attack.value!)}`;
    const response = await fetch(`${site.url}/apps/auth/login?${query}`, { redirect: 'manual' });
    const loginCookie = setCookie(response, 'lw_login')!;
    const state = new URL(response.headers.get('location')!).searchParams.get('state');
    const done = await callback(site.url, `code=c&state=${state}`, loginCookie);
    assert.is(done.status, 302);
    assert.is(done.headers.get('location'), '/apps/');
  });
}

flow('ADMIN_USERS makes a provider user admin; removing the name makes a later login non-admin', async () => {
  idp.userinfo.body = { id: 4242, login: 'Root-Person', avatar_url: 'javascript:alert(1)' };
  const adminSite = await startTestSite(idp.env({ ADMIN_USERS: 'someone, root-person' }));
  try {
    const { sessionCookie } = await loginThroughIdp(adminSite.url);
    assert.equal((await me(adminSite.url, sessionCookie)).user, { username: 'Root-Person', avatar: '', admin: true });
  } finally {
    await adminSite.close();
  }
  const plainSite = await startTestSite(idp.env({ ADMIN_USERS: 'someone' }));
  try {
    const { sessionCookie } = await loginThroughIdp(plainSite.url);
    assert.is((await me(plainSite.url, sessionCookie)).user?.admin, false);
  } finally {
    await plainSite.close();
  }
});

flow('regression: ADMIN_USERS pins administrator rights to the subject that first matched, never to another by name', async () => {
  const adminSite = await startTestSite(idp.env({ ADMIN_USERS: 'Chief' }));
  const loginAs = async (info: Record<string, unknown>) => {
    idp.userinfo.body = info;
    const { sessionCookie } = await loginThroughIdp(adminSite.url);
    return (await me(adminSite.url, sessionCookie)).user;
  };
  try {
    const steps = [
      { what: 'the first subject under a listed name is pinned', info: { sub: 'pin-first', preferred_username: 'chief' }, user: { username: 'chief', admin: true } },
      { what: 'it keeps the rights under another name', info: { sub: 'pin-first', preferred_username: 'first-renamed' }, user: { username: 'first-renamed', admin: true } },
      { what: 'another subject taking the freed name gets none', info: { sub: 'pin-squatter', preferred_username: 'Chief' }, user: { username: 'Chief', admin: false } },
      { what: 'still none at its next login', info: { sub: 'pin-squatter', login: 'chief' }, user: { username: 'chief', admin: false } },
      { what: 'the pinned subject is still administrator', info: { sub: 'pin-first', preferred_username: 'first-again' }, user: { username: 'first-again', admin: true } },
    ];
    for (const step of steps) {
      const user = await loginAs(step.info);
      assert.equal({ username: user?.username, admin: user?.admin }, step.user, step.what);
    }
    const pins = await testSql()`select admin_name, provider_subject from admin_pins where admin_name = 'chief'`;
    assert.equal([...pins], [{ admin_name: 'chief', provider_subject: 'pin-first' }]);
  } finally {
    await adminSite.close();
  }
  // Rights follow ADMIN_USERS: unlisted, the pinned subject is not an administrator.
  const plainSite = await startTestSite(idp.env({ ADMIN_USERS: 'someone-else' }));
  try {
    idp.userinfo.body = { sub: 'pin-first', preferred_username: 'first-again' };
    const { sessionCookie } = await loginThroughIdp(plainSite.url);
    assert.is((await me(plainSite.url, sessionCookie)).user?.admin, false);
  } finally {
    await plainSite.close();
  }
});

flow('regression: ADMIN_USERS never matches the free-text name claim', async () => {
  const adminSite = await startTestSite(idp.env({ ADMIN_USERS: 'overseer' }));
  try {
    idp.userinfo.body = { sub: 'display-name-only', name: 'Overseer' };
    const { sessionCookie } = await loginThroughIdp(adminSite.url);
    assert.equal((await me(adminSite.url, sessionCookie)).user, { username: 'Overseer', avatar: '', admin: false });
    const pins = await testSql()`select 1 from admin_pins where admin_name = 'overseer'`;
    assert.is(pins.length, 0, 'no pin was claimed');
  } finally {
    await adminSite.close();
  }
});

flow('the provider username and avatar are updated at each login, keyed by subject', async () => {
  idp.userinfo.body = { sub: 'subject-rename', preferred_username: 'before-name' };
  await loginThroughIdp(site.url);
  idp.userinfo.body = { sub: 'subject-rename', preferred_username: 'after-name', picture: 'https://images.example/new.png' };
  const { sessionCookie } = await loginThroughIdp(site.url);
  assert.equal((await me(site.url, sessionCookie)).user, { username: 'after-name', avatar: 'https://images.example/new.png', admin: false });
  const rows = await testSql()`select username from users where provider_subject = 'subject-rename'`;
  assert.is(rows.length, 1);
});

flow('a provider username taken by a local account gets a suffix and not its admin rights', async () => {
  await createLocalAccount(testSql(), { username: 'boss', password: 'correct horse battery', admin: true });
  idp.userinfo.body = { sub: 'subject-boss', preferred_username: 'BOSS' };
  const adminSite = await startTestSite(idp.env({ ADMIN_USERS: 'boss' }));
  try {
    const { sessionCookie } = await loginThroughIdp(adminSite.url);
    assert.equal((await me(adminSite.url, sessionCookie)).user, { username: 'BOSS-2', avatar: '', admin: false });
    // Stable: the next login keeps the same name.
    const again = await loginThroughIdp(adminSite.url);
    assert.is((await me(adminSite.url, again.sessionCookie)).user?.username, 'BOSS-2');
  } finally {
    await adminSite.close();
  }
});

flow('a second login on the same browser ends the session it carried (no fixation)', async () => {
  const first = await loginThroughIdp(site.url);
  const start = await startLogin(site.url);
  const response = await callback(site.url, `code=c&state=${start.state}`, `${start.loginCookie}; ${first.sessionCookie}`);
  assert.is(response.status, 302);
  assert.is((await me(site.url, first.sessionCookie)).loggedIn, false);
  assert.is((await me(site.url, setCookie(response, 'sid'))).loggedIn, true);
});

const unconfigured = suite('without an identity provider');
let bare: TestServer;
unconfigured.before(async () => {
  bare = await startTestSite();
});
unconfigured.after(async () => {
  await bare.close();
});

unconfigured('login and callback answer 404 NOT_FOUND', async () => {
  for (const path of ['/apps/auth/login', '/apps/auth/callback?code=c&state=s']) {
    const response = await fetch(bare.url + path, { redirect: 'manual' });
    assert.is(response.status, 404);
    assert.is((await errorOf(response)).code, 'NOT_FOUND');
  }
});

const timeouts = suite('provider timeouts');
let quickIdp: FakeIdp;
let quick: { url: string; close(): Promise<void> };
const SHORT_TIMEOUT_MS = 200;

timeouts.before(async () => {
  quickIdp = await startFakeIdp();
  // Short provider timeouts, so no test waits 10 s.
  quick = await startAuthOnly(quickIdp.env(), {
    providerLimits: { headersTimeoutMs: SHORT_TIMEOUT_MS, bodyTimeoutMs: SHORT_TIMEOUT_MS, totalTimeoutMs: SHORT_TIMEOUT_MS * 2 },
  });
});
timeouts.before.each(() => quickIdp.reset());
timeouts.after(async () => {
  await quick.close();
  await quickIdp.close();
  // The last suite to run: the pool goes with it.
  await closeTestSql();
});

for (const endpoint of ['token', 'userinfo'] as const) {
  timeouts(`a ${endpoint} endpoint slower than the timeout gives 502 UPSTREAM_FAILED`, async () => {
    const delayMs = SHORT_TIMEOUT_MS * 10;
    quickIdp[endpoint].delayMs = delayMs;
    const started = Date.now();
    const start = await startLogin(quick.url);
    const response = await callback(quick.url, `code=c&state=${start.state}`, start.loginCookie);
    assert.is(response.status, 502);
    assert.is((await errorOf(response)).code, 'UPSTREAM_FAILED');
    assert.is(setCookie(response, 'sid'), undefined);
    assert.ok(Date.now() - started < delayMs, 'gave up at the timeout, not when the provider answered');
  });
}

timeouts('an unreachable provider gives 502 UPSTREAM_FAILED', async () => {
  const unreachable = await startFakeIdp();
  const tokenUrl = unreachable.tokenUrl;
  await unreachable.close();
  const server = await startAuthOnly(quickIdp.env({ OAUTH_TOKEN_URL: tokenUrl }), {});
  try {
    const start = await startLogin(server.url);
    const response = await callback(server.url, `code=c&state=${start.state}`, start.loginCookie);
    assert.is(response.status, 502);
  } finally {
    await server.close();
  }
});

flow.run();
unconfigured.run();
timeouts.run();
