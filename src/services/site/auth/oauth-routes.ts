import { HttpError } from '../../../http/errors.js';
import { getCookie } from '../../../http/cookies.js';
import { redirect } from '../../../http/answer/index.js';
import type { SiteContext, SiteDeps, SiteHandler } from '../context.js';
import { clearLoginCookie, loginCookieName, LOGIN_TTL_SECONDS, setLoginCookie } from './cookies.js';
import { identityFrom } from './identity.js';
import { loginStateKey, openLoginState, pkceChallenge, randomToken, sealLoginState, stateMatches } from './login-state.js';
import type { ProviderClient } from './provider-client.js';
import { upstreamFailed } from './provider-client.js';
import { safeReturnTo } from './return-to.js';
import { beginSession } from './session-lifecycle.js';
import { upsertProviderUser } from './users.js';

// Login through the identity provider: OAuth 2.0 authorization code with PKCE
// (RFC 6749 4.1, RFC 7636), as docs/api.md "Login and sessions" describes it. Without OAUTH_* settings both routes answer 404 NOT_FOUND: the site
// then has only local accounts (POST /apps/auth/password).

export const CALLBACK_PATH = '/apps/auth/callback';
/** Authorization codes are short; a huge one is not worth sending to the provider. */
export const MAX_CODE_LENGTH = 2048;

/** GET /apps/auth/login (to the provider) and GET /apps/auth/callback (back from it). */
export function oauthHandlers(deps: SiteDeps, client: ProviderClient): { login: SiteHandler; callback: SiteHandler } {
  const oauth = deps.config.oauth;
  const key = oauth ? loginStateKey(oauth.clientSecret) : undefined;
  const redirectUri = deps.config.publicUrl + CALLBACK_PATH;
  const adminNames = [...deps.config.adminUsers];

  const configured = () => {
    if (!oauth || !key) throw new HttpError(404, 'NOT_FOUND', 'Login through an identity provider is not configured');
    return { oauth, key };
  };

  const login = (ctx: SiteContext) => {
    const { oauth, key } = configured();
    const state = randomToken();
    const verifier = randomToken();
    const returnTo = safeReturnTo(ctx.query.get('return_to'));
    const expiresAt = Date.now() + LOGIN_TTL_SECONDS * 1000;
    setLoginCookie(ctx.res, deps.config, sealLoginState(key, { state, verifier, returnTo, expiresAt }));
    // Parameters are set on the configured URL, so a query it already has is kept.
    const target = new URL(oauth.authorizeUrl);
    target.searchParams.set('response_type', 'code');
    target.searchParams.set('client_id', oauth.clientId);
    target.searchParams.set('redirect_uri', redirectUri);
    target.searchParams.set('scope', oauth.scope);
    target.searchParams.set('state', state);
    target.searchParams.set('code_challenge', pkceChallenge(verifier));
    target.searchParams.set('code_challenge_method', 'S256');
    redirect(ctx, target.href);
  };

  const callback = async (ctx: SiteContext) => {
    const { oauth, key } = configured();
    const pending = openLoginState(key, getCookie(ctx.req, loginCookieName(deps.config)));
    // One use per login, whatever the outcome.
    clearLoginCookie(ctx.res, deps.config);
    if (ctx.query.has('error')) {
      throw new HttpError(401, 'LOGIN_DENIED', 'The identity provider did not grant the login');
    }
    if (!pending) {
      throw new HttpError(400, 'BAD_REQUEST', 'This login has expired or was started in another browser; start it again');
    }
    if (!stateMatches(pending.state, ctx.query.get('state'))) {
      throw new HttpError(400, 'BAD_REQUEST', 'The login state does not match this browser; start the login again');
    }
    const code = ctx.query.get('code');
    if (!code || code.length > MAX_CODE_LENGTH) {
      throw new HttpError(400, 'BAD_REQUEST', 'The identity provider sent no usable authorization code');
    }
    const accessToken = await client.exchangeCode(oauth, code, redirectUri, pending.verifier);
    const identity = identityFrom(await client.fetchUserinfo(oauth, accessToken));
    if (!identity) throw upstreamFailed('userinfo endpoint gave no subject or no username');
    const user = await upsertProviderUser(deps.sql, identity, adminNames, deps.log);
    await beginSession(ctx, deps, user);
    redirect(ctx, pending.returnTo);
  };

  return { login, callback };
}
