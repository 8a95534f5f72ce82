import type { ServerResponse } from 'node:http';
import type { Config } from '../../core/config.js';
import { serializeCookie } from '../../core/middleware/cookies.js';

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
export function sessionCookieName(config: Config): string {
  return config.secureCookies ? '__Host-sid' : 'sid';
}

/** Only sent back to the callback (and the login route that sets it). */
export const LOGIN_COOKIE = 'lw_login';
export const LOGIN_COOKIE_PATH = '/apps/auth';

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

export function setSessionCookie(res: ServerResponse, config: Config, token: string): void {
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

export function clearSessionCookie(res: ServerResponse, config: Config): void {
  putCookie(
    res,
    sessionCookieName(config),
    serializeCookie(sessionCookieName(config), '', { maxAgeSeconds: 0, path: '/', secure: config.secureCookies, sameSite: 'Lax' }),
  );
}

export function setLoginCookie(res: ServerResponse, config: Config, value: string): void {
  putCookie(
    res,
    LOGIN_COOKIE,
    serializeCookie(LOGIN_COOKIE, value, {
      maxAgeSeconds: LOGIN_TTL_SECONDS,
      path: LOGIN_COOKIE_PATH,
      httpOnly: true,
      secure: config.secureCookies,
      sameSite: 'Lax',
    }),
  );
}

export function clearLoginCookie(res: ServerResponse, config: Config): void {
  putCookie(
    res,
    LOGIN_COOKIE,
    serializeCookie(LOGIN_COOKIE, '', { maxAgeSeconds: 0, path: LOGIN_COOKIE_PATH, secure: config.secureCookies, sameSite: 'Lax' }),
  );
}
