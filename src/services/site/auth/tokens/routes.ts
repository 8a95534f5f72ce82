import { HttpError } from '../../../../http/errors.js';
import { sendJson, sendOk } from '../../../../http/answer/index.js';
import { requireUser } from '../guards.js';
import type { SiteContext, SiteDeps, SiteHandler } from '../../context.js';
import { createToken, listTokens, revokeToken } from './token-store.js';
import { validateNewToken } from './validation.js';

/** A token id as the database makes them; anything else names no token (404, no query). */
const TOKEN_ID = /^[1-9][0-9]{0,17}$/;

// Per-user answers, and one of them carries a secret: no cache may keep any.
const NO_STORE = { 'Cache-Control': 'no-store' };

export function createTokenHandler(deps: SiteDeps): SiteHandler {
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    const wanted = validateNewToken(ctx.body);
    const { token, secret } = await createToken(deps.sql, user, wanted);
    sendJson(ctx, 201, { success: true, token, secret }, NO_STORE);
  };
}

export function listTokensHandler(deps: SiteDeps): SiteHandler {
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    sendJson(ctx, 200, { success: true, tokens: await listTokens(deps.sql, user.id) }, NO_STORE);
  };
}

export function revokeTokenHandler(deps: SiteDeps): SiteHandler {
  return async (ctx: SiteContext) => {
    const user = requireUser(ctx);
    const id = ctx.params.id!;
    if (!TOKEN_ID.test(id) || !(await revokeToken(deps.sql, user, id))) throw new HttpError(404, 'NOT_FOUND', 'Token not found');
    sendOk(ctx);
  };
}
