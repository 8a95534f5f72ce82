import { HttpError } from '../../core/errors.js';
import type { SessionUser, SiteContext, SiteMiddleware } from '../context.js';

// For handlers of other features: the session middleware has already resolved the
// user, so these only read ctx.locals.

export function requireUser(ctx: SiteContext): SessionUser {
  const user = ctx.locals.user;
  if (!user) throw new HttpError(401, 'UNAUTHORIZED', 'You need to log in first');
  return user;
}

export function requireAdmin(ctx: SiteContext): SessionUser {
  const user = requireUser(ctx);
  if (!user.admin) throw new HttpError(403, 'FORBIDDEN', 'Administrator rights are required');
  return user;
}

/** Route middleware (`use: [userRequired]`): 401 before the body is read. */
export const userRequired: SiteMiddleware = (ctx, next) => {
  requireUser(ctx);
  return next();
};

/** Route middleware (`use: [adminRequired]`): 401 / 403 before the body is read. */
export const adminRequired: SiteMiddleware = (ctx, next) => {
  requireAdmin(ctx);
  return next();
};
