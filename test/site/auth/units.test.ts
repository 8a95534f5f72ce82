// The pure parts of login: return_to, the 429 of a rate limit, the login-state cookie,
// PKCE, reading userinfo, usernames, guards and the hash gate. Table-driven.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../../src/http/errors.js';
import { rateLimited } from '../../../src/http/rate-limited.js';
import { requireAdmin, requireUser } from '../../../src/services/site/auth/guards.js';
import { identityFrom } from '../../../src/services/site/auth/identity.js';
import { loginStateKey, openLoginState, pkceChallenge, sealLoginState, stateMatches } from '../../../src/services/site/auth/login-state.js';
import { createHashGate } from '../../../src/services/site/auth/passwords.js';
import { safeReturnTo } from '../../../src/services/site/auth/return-to.js';
import { hashToken, tokenKey } from '../../../src/services/site/auth/sessions.js';
import { cleanProviderUsername, usernameCandidates } from '../../../src/services/site/auth/usernames.js';
import type { SessionUser, SiteContext } from '../../../src/services/site/context.js';

const returnTo = suite('safeReturnTo');
const returnToCases: Array<{ what: string; input: string | null; expected: string }> = [
  { what: 'plain path', input: '/apps/plugins/x', expected: '/apps/plugins/x' },
  { what: 'path with query and fragment', input: '/apps/?q=a b#top', expected: '/apps/?q=a%20b#top' },
  { what: 'non-ASCII is percent-encoded', input: '/apps/é', expected: '/apps/%C3%A9' },
  { what: 'root', input: '/', expected: '/' },
  { what: 'absent', input: null, expected: '/apps/' },
  { what: 'empty', input: '', expected: '/apps/' },
  { what: 'relative path', input: 'apps/x', expected: '/apps/' },
  { what: 'protocol-relative', input: '//evil.example', expected: '/apps/' },
  { what: 'slash backslash', input: '/\\evil.example', expected: '/apps/' },
  { what: 'backslash later in the path', input: '/a\\..\\\\evil.example', expected: '/apps/' },
  { what: 'https URL', input: 'https://evil.example/', expected: '/apps/' },
  { what: 'javascript scheme', input: 'javascript:alert(1)', expected: '/apps/' },
  { what: 'data scheme', input: 'data:text/html,x', expected: '/apps/' },
  { what: 'tab between slashes', input: '/\t/evil.example', expected: '/apps/' },
  { what: 'newline (header injection)', input: '/a\r\nSet-Cookie: x=1', expected: '/apps/' },
  { what: 'NUL', input: '/a\u0000b', expected: '/apps/' },
  { what: 'dot segment producing //', input: '/.//evil.example', expected: '/apps/' },
  { what: 'parent segment producing //', input: '/a/..//evil.example', expected: '/apps/' },
  { what: 'over-long', input: '/' + 'a'.repeat(1024), expected: '/apps/' },
  { what: 'longest accepted', input: '/' + 'a'.repeat(1023), expected: '/' + 'a'.repeat(1023) },
];
for (const c of returnToCases) {
  returnTo(c.what, () => assert.is(safeReturnTo(c.input), c.expected));
}

const limiter = suite('rate limit answer');
limiter('rateLimited gives 429 RATE_LIMITED with Retry-After', () => {
  const error = rateLimited({ allowed: false, remaining: 0, retryAfterSeconds: 42 });
  assert.is(error.status, 429);
  assert.is(error.code, 'RATE_LIMITED');
  assert.equal(error.headers, { 'Retry-After': '42' });
});

const loginState = suite('login state cookie and PKCE');
const key = loginStateKey('a client secret');
const sample = { state: 's'.repeat(43), verifier: 'v'.repeat(43), returnTo: '/apps/x', expiresAt: 2_000_000 };
loginState('seal then open gives the same state back', () => {
  assert.equal(openLoginState(key, sealLoginState(key, sample), 1_000_000), sample);
});
loginState('the key from one client secret is the same in every process', () => {
  assert.equal(openLoginState(loginStateKey('a client secret'), sealLoginState(key, sample), 1_000_000), sample);
});
const refusedCookies: Array<{ what: string; cookie: () => string | undefined; now?: number }> = [
  { what: 'absent', cookie: () => undefined },
  { what: 'expired', cookie: () => sealLoginState(key, sample), now: 2_000_000 },
  { what: 'another key', cookie: () => sealLoginState(loginStateKey('other secret'), sample) },
  { what: 'random key of a public client', cookie: () => sealLoginState(loginStateKey(''), sample) },
  { what: 'payload altered', cookie: () => 'x' + sealLoginState(key, sample) },
  { what: 'mac missing', cookie: () => sealLoginState(key, sample).split('.')[0] },
  { what: 'garbage', cookie: () => 'not.a.cookie' },
];
for (const c of refusedCookies) {
  loginState(`refused: ${c.what}`, () => assert.is(openLoginState(key, c.cookie(), c.now ?? 1_000_000), null));
}
loginState('a return_to inside a valid cookie is still checked', () => {
  const opened = openLoginState(key, sealLoginState(key, { ...sample, returnTo: '//evil.example' }), 1_000_000);
  assert.is(opened?.returnTo, '/apps/');
});
loginState('stateMatches compares exactly', () => {
  assert.ok(stateMatches('abc', 'abc'));
  for (const received of ['abd', 'ab', 'abcd', '', null, 'a'.repeat(300)]) assert.not.ok(stateMatches('abc', received));
});
loginState('S256 challenge matches RFC 7636 appendix B', () => {
  assert.is(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
});

const identity = suite('identityFrom');
const identityCases: Array<{ what: string; info: unknown; expected: ReturnType<typeof identityFrom> }> = [
  {
    what: 'OIDC fields',
    info: { sub: 'abc', preferred_username: 'alice', name: 'Alice A', picture: 'https://x.example/a.png' },
    expected: { subject: 'abc', username: 'alice', usernameClaim: 'preferred_username', avatar: 'https://x.example/a.png' },
  },
  {
    what: 'GitHub fields, numeric id',
    info: { id: 123, login: 'octo', avatar_url: 'https://avatars.example/u/1' },
    expected: { subject: '123', username: 'octo', usernameClaim: 'login', avatar: 'https://avatars.example/u/1' },
  },
  { what: 'sub wins over id', info: { sub: 's', id: 9, username: 'u' }, expected: { subject: 's', username: 'u', usernameClaim: 'username', avatar: '' } },
  { what: 'name as the last resort', info: { sub: 's', name: '  Zoë Z  ' }, expected: { subject: 's', username: 'Zoë Z', usernameClaim: 'name', avatar: '' } },
  { what: 'empty preferred_username falls through', info: { sub: 's', preferred_username: '', login: 'l' }, expected: { subject: 's', username: 'l', usernameClaim: 'login', avatar: '' } },
  { what: 'javascript avatar dropped', info: { sub: 's', login: 'l', picture: 'javascript:alert(1)' }, expected: { subject: 's', username: 'l', usernameClaim: 'login', avatar: '' } },
  { what: 'avatar with credentials dropped', info: { sub: 's', login: 'l', avatar: 'https://u:p@x.example/a' }, expected: { subject: 's', username: 'l', usernameClaim: 'login', avatar: '' } },
  { what: 'bad picture, good avatar', info: { sub: 's', login: 'l', picture: 7, avatar: 'http://x.example/a' }, expected: { subject: 's', username: 'l', usernameClaim: 'login', avatar: 'http://x.example/a' } },
  { what: 'no username', info: { sub: 's' }, expected: null },
  { what: 'no subject', info: { login: 'l' }, expected: null },
  { what: 'subject is an object', info: { sub: { a: 1 }, login: 'l' }, expected: null },
  { what: 'username with a control character', info: { sub: 's', login: 'a\nb' }, expected: null },
  { what: 'username with a bidi override', info: { sub: 's', login: 'a\u202eb' }, expected: null },
  { what: 'not an object', info: 'alice', expected: null },
  { what: 'null', info: null, expected: null },
];
for (const c of identityCases) {
  identity(c.what, () => assert.equal(identityFrom(c.info), c.expected));
}

const usernames = suite('usernames');
usernames('provider usernames are truncated to 64 code points', () => {
  assert.is(Array.from(cleanProviderUsername('界'.repeat(100))!).length, 64);
});
usernames('candidates: the name, numbered suffixes, then a random one, all within 64', () => {
  const long = 'n'.repeat(64);
  const all = [...usernameCandidates(long, () => 'abcdef')];
  assert.is(all[0], long);
  assert.is(all[1], 'n'.repeat(62) + '-2');
  assert.is(all[19], 'n'.repeat(61) + '-20');
  assert.is(all[20], 'n'.repeat(57) + '-abcdef');
  assert.is(all.length, 21);
  assert.ok(all.every((name) => name.length <= 64));
});

const guards = suite('guards');
const user: SessionUser = { id: '1', username: 'u', avatar: '', admin: false };
const ctxWith = (who: SessionUser | null) => ({ locals: { user: who } }) as unknown as SiteContext;
const guardCases: Array<{ what: string; run: () => unknown; status?: number; code?: string }> = [
  { what: 'requireUser without a user → 401 UNAUTHORIZED', run: () => requireUser(ctxWith(null)), status: 401, code: 'UNAUTHORIZED' },
  { what: 'requireAdmin without a user → 401 UNAUTHORIZED', run: () => requireAdmin(ctxWith(null)), status: 401, code: 'UNAUTHORIZED' },
  { what: 'requireAdmin for a non-admin → 403 FORBIDDEN', run: () => requireAdmin(ctxWith(user)), status: 403, code: 'FORBIDDEN' },
  { what: 'requireUser with a user passes', run: () => requireUser(ctxWith(user)) },
  { what: 'requireAdmin with an admin passes', run: () => requireAdmin(ctxWith({ ...user, admin: true })) },
];
for (const c of guardCases) {
  guards(c.what, () => {
    if (c.status === undefined) {
      assert.ok(c.run());
      return;
    }
    try {
      c.run();
      assert.unreachable('should throw');
    } catch (error) {
      assert.instance(error, HttpError);
      assert.is((error as HttpError).status, c.status);
      assert.is((error as HttpError).code, c.code);
    }
  });
}

const gate = suite('hash gate');
gate('runs at most maxConcurrent tasks at once and refuses beyond maxWaiting with 429', async () => {
  const limitGate = createHashGate(2, 1);
  let running = 0;
  let peak = 0;
  const releases: Array<() => void> = [];
  const task = () =>
    limitGate.run(async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
    });
  const first = [task(), task(), task()];
  const refused = await task().then(() => null, (error: unknown) => error as HttpError);
  assert.is(refused?.status, 429);
  assert.is(refused?.code, 'RATE_LIMITED');
  while (releases.length > 0 || running > 0) {
    releases.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(first);
  assert.is(peak, 2);
});

returnTo.run();
limiter.run();
loginState.run();
identity.run();
usernames.run();
guards.run();
gate.run();

// The key of a kept session lookup is the base64 of the hash stored in sessions.token_hash, one-shot or not.
const keys = suite('tokenKey');
const tokenCases: Array<{ what: string; token: string }> = [
  { what: 'a session token', token: 'Ab3_-x'.repeat(7) + 'Z' },
  { what: 'another token', token: 'q'.repeat(43) },
];
for (const c of tokenCases) {
  keys(c.what, () => {
    assert.is(tokenKey(c.token), hashToken(c.token).toString('base64'));
    assert.equal(Buffer.from(tokenKey(c.token), 'base64'), hashToken(c.token));
  });
}
keys.run();
