import type { Feature } from '../../../../http/feature.js';
import { jsonBody } from '../../../../http/json-body.js';
import type { Guards } from '../guards.js';
import type { SiteDeps, SiteLocals } from '../../context.js';
import { createTokenHandler, listTokensHandler, revokeTokenHandler } from './routes.js';

/**
 * Personal API tokens, for publishing from CI. Managing them takes the session
 * (userRequired answers 403 to a token): a token can never make or list tokens.
 */
export function tokensFeature(deps: SiteDeps, guards: Guards): Feature<SiteLocals> {
  return {
    routes: [
      { method: 'GET', path: '/apps/api/tokens', use: [guards.userRequired], handler: listTokensHandler(deps) },
      { method: 'POST', path: '/apps/api/tokens', use: [guards.userRequired, jsonBody()], handler: createTokenHandler(deps) },
      { method: 'DELETE', path: '/apps/api/tokens/:id', use: [guards.userRequired], handler: revokeTokenHandler(deps) },
    ],
  };
}
