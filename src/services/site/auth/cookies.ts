import type { ServerResponse } from 'node:http';
import type { SiteSettings } from '../settings.js';
import { serializeCookie } from '../../../http/cookies.js';

// The two cookies of the login. Both HttpOnly and SameSite=Lax: Lax is what lets
// the provider's top-level redirect back to /apps/auth/callback carry them, while a
// cross-site POST from another page does not.

/** Session lifetime: fixed, not sliding; the user logs in again after it. */
export const SESSION_TTL_SECONDS = 30 * 24 * 60 * 60;
/** A login in progress: time to get through the provider's pages. */
export const LOGIN_TTL_SECONDS = 10 * 60;

/**
 * Under https the session cookie takes the `__Host-` prefix: browsers then refuse
 * it unless Secure, Path=/ and host-only, so a sibling subdomain cannot plant one.
 */
export function sessionCookieName(config: SiteSettings): string {
  return config.secureCookies ? '__Host-sid' : 'sid';
}

/**
 * The login in progress (state, PKCE verifier, return_to). Under https it takes
 * the `__Host-` prefix too: otherwise a sibling subdomain could plant its own
 * login cookie (one it got by starting a login itself) and have the victim finish
 * that login, as the attacker (login CSRF). The prefix needs Path=/; over plain
 * http (development) the cookie keeps a path that only the login routes see.
 */
export function loginCookieName(config: SiteSettings): string {
  return config.secureCookies ? '__Host-lw_login' : 'lw_login';
}

function loginCookiePath(config: SiteSettings): string {
  return config.secureCookies ? '/' : '/apps/auth';
}

/**
 * Sets a cookie on the answer, replacing an earlier Set-Cookie of the same name on
 * it (the session middleware may have cleared a stale cookie that a login on the
 * same request now sets), and keeping other features' cookies.
 */
function putCookie(res: ServerResponse, name: string, serialized: string): void {
  const current = res.getHeader('Set-Cookie');
  const others = (current === undefined ? [] : Array.isArray(current) ? current : [String(current)]).filter(
    (line) => !line.startsWith(`${name}=`),
  );
  res.setHeader('Set-Cookie', [...others, serialized]);
}

export function setSessionCookie(res: ServerResponse, config: SiteSettings, token: string): void {
  putCookie(
    res,
    sessionCookieName(config),
    serializeCookie(sessionCookieName(config), token, {
      maxAgeSeconds: SESSION_TTL_SECONDS,
      path: '/',
      httpOnly: true,
      secure: config.secureCookies,
      sameSite: 'Lax',
    }),
  );
}

export function clearSessionCookie(res: ServerResponse, config: SiteSettings): void {
  putCookie(
    res,
    sessionCookieName(config),
    serializeCookie(sessionCookieName(config), '', { maxAgeSeconds: 0, path: '/', secure: config.secureCookies, sameSite: 'Lax' }),
  );
}

export function setLoginCookie(res: ServerResponse, config: SiteSettings, value: string): void {
  putCookie(
    res,
    loginCookieName(config),
    serializeCookie(loginCookieName(config), value, {
      maxAgeSeconds: LOGIN_TTL_SECONDS,
      path: loginCookiePath(config),
      httpOnly: true,
      secure: config.secureCookies,
      sameSite: 'Lax',
    }),
  );
}

export function clearLoginCookie(res: ServerResponse, config: SiteSettings): void {
  putCookie(
    res,
    loginCookieName(config),
    serializeCookie(loginCookieName(config), '', {
      maxAgeSeconds: 0,
      path: loginCookiePath(config),
      secure: config.secureCookies,
      sameSite: 'Lax',
    }),
  );
}
