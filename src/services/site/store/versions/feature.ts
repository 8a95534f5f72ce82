import type { Feature } from '../../../../http/feature.js';
import { jsonBodyBytes } from '../../../../http/json-body.js';
import { refuseBodyOnError } from '../../../../http/refuse-body.js';
import { createBatchedRateLimiter } from '../../../../db/batched-rate-limiter.js';
import { createSharedRateLimiter } from '../../../../db/shared-rate-limiter.js';
import type { Guards } from '../../auth/guards.js';
import type { SiteDeps, SiteLocals } from '../../context.js';
import type { ImageHostClient } from '../../image-host/client.js';
import { createKeptAnswers } from '../../kept-answers.js';
import { UPDATE_CHECKS_FLUSH_MS, UPDATE_CHECKS_PER_MINUTE, UPDATE_CHECKS_UNFLUSHED, UPDATES_BODY_LIMIT, UPLOAD_WINDOW_MS, UPLOADS_PER_WINDOW } from './limits.js';
import { createPluginHandler } from './create-route.js';
import { getVersionHandler, listVersionsHandler } from './read-routes.js';
import { CORS, crossOriginAnswers, updatesHandler, updatesPreflight } from './updates-route.js';
import { uploadVersionHandler } from './upload-route.js';
import { removeHandler, withdrawHandler } from './withdraw-routes.js';

// Plugin versions (issue 19): every version's ZIP kept on the image host, reviewed
// like any update, listed newest first; and the launchers' update check.

/** `imageHost` is the site's one client of the image host: the site closes it, after its features. */
export function versionsFeature(deps: SiteDeps, guards: Guards, imageHost: ImageHostClient): Feature<SiteLocals> {
  const uploads = createSharedRateLimiter(deps.sql, { name: 'version-upload', limit: UPLOADS_PER_WINDOW, windowMs: UPLOAD_WINDOW_MS });
  // Counted in memory and added to PostgreSQL four times a second: no write per check (the tolerance is in the module).
  const checks = createBatchedRateLimiter(deps.sql, {
    name: 'update-check', limit: UPDATE_CHECKS_PER_MINUTE, windowMs: 60_000, unflushed: UPDATE_CHECKS_UNFLUSHED, flushMs: UPDATE_CHECKS_FLUSH_MS,
  });
  const stale = { staleIfErrorSeconds: deps.config.staleIfErrorSeconds };
  const kept = createKeptAnswers(deps.sql, { ...stale, name: 'versions' });
  // Update checks in a cache of their own: launchers' questions never crowd out the
  // store's answers. Their CORS header is prepared with each answer, not added per request.
  const keptChecks = createKeptAnswers(deps.sql, { ...stale, name: 'updates', headers: CORS });
  const versions = '/apps/api/plugins/:id/versions';
  return {
    routes: [
      // A new plugin: SPEC's JSON body, or its ZIP alone as multipart (issue 31), relayed to the image host.
      { method: 'POST', path: '/apps/api/plugins', use: [refuseBodyOnError, guards.userOrToken('plugins:write')], handler: createPluginHandler(deps, imageHost, uploads) },
      { method: 'GET', path: versions, use: [guards.withUser], handler: listVersionsHandler(deps, kept) },
      // The guard refuses before any body byte is read; refuseBodyOnError lets the client finish sending to read it.
      { method: 'POST', path: versions, use: [refuseBodyOnError, guards.userOrToken('plugins:write')], handler: uploadVersionHandler(deps, imageHost, uploads) },
      { method: 'GET', path: `${versions}/:version`, use: [guards.withUser], handler: getVersionHandler(deps, kept) },
      { method: 'DELETE', path: `${versions}/:version`, use: [guards.adminRequired], handler: removeHandler(deps, imageHost) },
      { method: 'POST', path: `${versions}/:version/withdraw`, use: [guards.userOrToken('plugins:write')], handler: withdrawHandler(deps) },
      { method: 'POST', path: '/apps/api/updates', use: [crossOriginAnswers, jsonBodyBytes({ limit: UPDATES_BODY_LIMIT })], handler: updatesHandler(deps, keptChecks, checks) },
      { method: 'OPTIONS', path: '/apps/api/updates', handler: updatesPreflight },
    ],
    close: async () => {
      await checks.close();
    },
  };
}
