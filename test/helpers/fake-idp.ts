// A fake OAuth 2.0 identity provider on 127.0.0.1:0 for the login tests. Each test
// sets how the token and userinfo endpoints answer (status, body, delay) and reads
// back the requests they got (form fields, Bearer header, PKCE verifier).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/http/app.js';
import { listen } from '../../src/http/server.js';
import type { Sql } from '../../src/db/pool.js';
import { createGuards } from '../../src/services/site/auth/guards.js';
import { authFeature, type AuthOptions } from '../../src/services/site/auth/feature.js';
import { createSession } from '../../src/services/site/auth/sessions.js';
import { upsertProviderUser } from '../../src/services/site/auth/users.js';
import type { SiteLocals } from '../../src/services/site/context.js';
import { renderSiteError } from '../../src/services/site/errors.js';
import { testConfig, testLogger, testSql } from './servers.js';

export interface EndpointBehaviour {
  status: number;
  /** JSON-encoded unless a string, which is sent as is. */
  body: unknown;
  delayMs: number;
  /** Extra response headers (e.g. Location for a redirect). */
  headers?: Record<string, string>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed as a form (empty when it is not one). */
  form: URLSearchParams;
}

export interface FakeIdp {
  url: string;
  /** Has a query of its own, which the site must keep. */
  authorizeUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  token: EndpointBehaviour;
  userinfo: EndpointBehaviour;
  requests: RecordedRequest[];
  /** Requests to one endpoint ('/token', '/userinfo', ...). */
  requestsTo(path: string): RecordedRequest[];
  /** The access token the token endpoint hands out by default. */
  accessToken: string;
  /**
   * When true, /authorize sends the browser straight back to its redirect_uri with
   * a code and the state, as a provider does once its user agreed (browser tests).
   */
  autoApprove: boolean;
  /** Back to the default behaviour, requests forgotten. */
  reset(): void;
  /** OAUTH_* overrides for startTestSite. */
  env(extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

export const DEFAULT_USERINFO = { sub: 'subject-1', preferred_username: 'alice', picture: 'https://images.example/alice.png' };
export const CLIENT_ID = 'launcher-test-client';
export const CLIENT_SECRET = 'launcher-test-secret';

export async function startFakeIdp(): Promise<FakeIdp> {
  const accessToken = 'at-' + randomBytes(16).toString('hex');
  const defaults = (): Pick<FakeIdp, 'token' | 'userinfo'> => ({
    token: { status: 200, body: { access_token: accessToken, token_type: 'bearer' }, delayMs: 0 },
    userinfo: { status: 200, body: { ...DEFAULT_USERINFO }, delayMs: 0 },
  });
  const requests: RecordedRequest[] = [];

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://idp.invalid');
      const body = Buffer.concat(chunks).toString('utf8');
      const isForm = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
      requests.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        form: new URLSearchParams(isForm ? body : ''),
      });
      const behaviour = url.pathname === '/token' ? idp.token : url.pathname === '/userinfo' ? idp.userinfo : undefined;
      const back = url.searchParams.get('redirect_uri');
      if (url.pathname === '/authorize' && idp.autoApprove && back) {
        const target = new URL(back);
        target.searchParams.set('code', 'code-' + randomBytes(6).toString('hex'));
        target.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: target.href });
        res.end();
        return;
      }
      if (!behaviour) {
        res.writeHead(url.pathname === '/authorize' ? 200 : 404, { 'content-type': 'text/plain' });
        res.end('fake identity provider');
        return;
      }
      const answer = () => {
        if (res.destroyed) return;
        const text = typeof behaviour.body === 'string' ? behaviour.body : JSON.stringify(behaviour.body);
        res.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers });
        res.end(text);
      };
      if (behaviour.delayMs > 0) setTimeout(answer, behaviour.delayMs).unref();
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const idp: FakeIdp = {
    url,
    authorizeUrl: `${url}/authorize?tenant=launcher`,
    tokenUrl: `${url}/token`,
    userinfoUrl: `${url}/userinfo`,
    ...defaults(),
    requests,
    requestsTo: (path) => requests.filter((request) => request.path === path),
    accessToken,
    autoApprove: false,
    reset() {
      Object.assign(idp, defaults());
      requests.length = 0;
    },
    env: (extra = {}) => ({
      OAUTH_AUTHORIZE_URL: idp.authorizeUrl,
      OAUTH_TOKEN_URL: idp.tokenUrl,
      OAUTH_USERINFO_URL: idp.userinfoUrl,
      OAUTH_CLIENT_ID: CLIENT_ID,
      OAUTH_CLIENT_SECRET: CLIENT_SECRET,
      ...extra,
    }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return idp;
}

// ── Driving the login like a browser, with cookies carried by hand ──────────────

/** `name=value` of a cookie the answer sets, or undefined. */
export function setCookie(res: Response, name: string): string | undefined {
  const line = res.headers.getSetCookie().find((candidate) => candidate.startsWith(`${name}=`));
  return line?.split(';')[0];
}

/** The full Set-Cookie line for a cookie, attributes included. */
export function setCookieLine(res: Response, name: string): string | undefined {
  return res.headers.getSetCookie().find((candidate) => candidate.startsWith(`${name}=`));
}

export interface LoginStart {
  response: Response;
  /** Where the site sent the browser: the provider's authorize URL. */
  authorize: URL;
  /** `lw_login=...` (`__Host-lw_login=...` under https), to send back to the callback. */
  loginCookie: string;
  state: string;
}

export async function startLogin(siteUrl: string, returnTo?: string): Promise<LoginStart> {
  const query = returnTo === undefined ? '' : `?return_to=${encodeURIComponent(returnTo)}`;
  const response = await fetch(`${siteUrl}/apps/auth/login${query}`, { redirect: 'manual' });
  const location = response.headers.get('location');
  const loginCookie = setCookie(response, 'lw_login') ?? setCookie(response, '__Host-lw_login');
  if (response.status !== 302 || !location || !loginCookie) {
    throw new Error(`login did not start: ${response.status} ${await response.text()}`);
  }
  const authorize = new URL(location);
  return { response, authorize, loginCookie, state: authorize.searchParams.get('state') ?? '' };
}

export async function callback(siteUrl: string, query: string, cookie?: string): Promise<Response> {
  return fetch(`${siteUrl}/apps/auth/callback?${query}`, {
    redirect: 'manual',
    headers: cookie ? { cookie } : {},
  });
}

export interface LoggedIn {
  response: Response;
  /** `sid=...` */
  sessionCookie: string;
}

/** The whole provider login; fails the test when no session cookie comes back. */
export async function loginThroughIdp(siteUrl: string, returnTo?: string, cookieName = 'sid'): Promise<LoggedIn> {
  const start = await startLogin(siteUrl, returnTo);
  const response = await callback(siteUrl, `code=code-${randomBytes(4).toString('hex')}&state=${start.state}`, start.loginCookie);
  const sessionCookie = setCookie(response, cookieName);
  if (response.status !== 302 || !sessionCookie) throw new Error(`callback failed: ${response.status} ${await response.text()}`);
  return { response, sessionCookie };
}

export async function me(siteUrl: string, cookie?: string): Promise<{ loggedIn: boolean; user: null | { username: string; avatar: string; admin: boolean } }> {
  const response = await fetch(`${siteUrl}/apps/api/me`, { headers: cookie ? { cookie } : {} });
  if (response.status !== 200) throw new Error(`/apps/api/me answered ${response.status}`);
  return (await response.json()) as never;
}

/**
 * For other features' tests: a logged-in user without going through any login,
 * as a `sid=...` cookie header (sites under an http PUBLIC_URL).
 */
export async function testSessionCookie(sql: Sql, username: string, options: { admin?: boolean } = {}): Promise<string> {
  const identity = { subject: `test:${username}`, username, usernameClaim: 'preferred_username' as const, avatar: '' };
  const user = await upsertProviderUser(sql, identity, options.admin === true ? [username] : []);
  return `sid=${await createSession(sql, user.id)}`;
}

/**
 * The auth feature alone on a random port, with options the whole site cannot take
 * (short provider timeouts, low failure limits), so tests need not wait or hash much.
 */
export async function startAuthOnly(
  overrides: Record<string, string | undefined>,
  options: AuthOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const config = testConfig(overrides);
  const deps = { config, sql: testSql(), log: testLogger() };
  const feature = authFeature(deps, createGuards(deps), options);
  const handler = createApp<SiteLocals>({
    name: 'site',
    log: testLogger(),
    trustProxy: config.trustProxy,
    createLocals: () => ({ user: null }),
    renderError: renderSiteError,
    middleware: feature.middleware ?? [],
    routes: feature.routes,
  });
  const server = await listen(handler, '127.0.0.1', 0);
  return {
    url: server.url,
    close: async () => {
      await server.close(1000);
      await feature.close?.();
    },
  };
}
