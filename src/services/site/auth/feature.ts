import type { Feature } from '../../../http/feature.js';
import type { SiteDeps, SiteLocals } from '../context.js';
import { crossSiteProtection } from './cross-site.js';
import { jsonBody } from '../../../http/json-body.js';
import { oauthHandlers } from './oauth-routes.js';
import { DEFAULT_LOGIN_LIMITS, passwordLoginHandler, type LoginLimits } from './password-login.js';
import { createProviderClient, DEFAULT_PROVIDER_LIMITS, type ProviderLimits } from './provider-client.js';
import type { Guards } from './guards.js';
import { sessionHandlers } from './session-routes.js';
import { purgeExpiredSessions } from './sessions.js';

// Login (identity provider and local accounts), sessions, and the cross-site check.

/** Expired sessions are already ignored by lookups; the purge only keeps the table small. */
export const PURGE_INTERVAL_MS = 60 * 60 * 1000;
/** First purge a little after start, not during it (and not in short test runs). */
export const FIRST_PURGE_DELAY_MS = 60 * 1000;

export interface AuthOptions {
  /** Timeouts and size limit for the identity provider; tests shorten them. */
  providerLimits?: Partial<ProviderLimits>;
  /** Failed password logins allowed per window; tests lower them to stay fast. */
  loginLimits?: Partial<LoginLimits>;
}

export function authFeature(deps: SiteDeps, guards: Guards, options: AuthOptions = {}): Feature<SiteLocals> {
  const client = createProviderClient({ ...DEFAULT_PROVIDER_LIMITS, ...options.providerLimits }, deps.config.outbound);
  const log = deps.log.child({ feature: 'auth' });
  const oauth = oauthHandlers(deps, client);
  const session = sessionHandlers(deps);

  const purge = () => {
    purgeExpiredSessions(deps.sql).then(
      (count) => {
        if (count > 0) log.info('expired sessions purged', { count });
      },
      (error: unknown) => log.warn('purging expired sessions failed', { err: error }),
    );
  };
  let interval: NodeJS.Timeout | undefined;
  const first = setTimeout(() => {
    purge();
    interval = setInterval(purge, PURGE_INTERVAL_MS);
    interval.unref();
  }, FIRST_PURGE_DELAY_MS);
  first.unref();

  return {
    // On every request, before any route's guard looks the session up or reads a
    // body: a forged request is refused first. It only reads the cookie header.
    middleware: [crossSiteProtection(deps.config)],
    routes: [
      { method: 'GET', path: '/apps/auth/login', handler: oauth.login },
      { method: 'GET', path: '/apps/auth/callback', handler: oauth.callback },
      { method: 'POST', path: '/apps/auth/password', use: [jsonBody()], handler: passwordLoginHandler(deps, { ...DEFAULT_LOGIN_LIMITS, ...options.loginLimits }) },
      { method: 'GET', path: '/apps/api/me', use: [guards.withUser], handler: session.me },
      // Logout takes no guard: it deletes whatever session the cookie names, live or
      // not, without looking the user up first.
      { method: 'POST', path: '/apps/auth/logout', handler: session.logout },
      { method: 'GET', path: '/apps/auth/logout', handler: session.logoutAndLeave },
    ],
    close: async () => {
      clearTimeout(first);
      clearInterval(interval);
      await client.close();
    },
  };
}
