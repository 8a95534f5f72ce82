import type { HttpError } from '../core/errors.js';
import { sendJson } from '../core/respond.js';
import type { SiteContext } from './context.js';

/** The site's failure envelope: {success: false, error, code, field?}. */
export function renderSiteError(ctx: SiteContext, error: HttpError): void {
  const body: Record<string, unknown> = { success: false, error: error.message, code: error.code };
  if (error.field) body.field = error.field;
  sendJson(ctx, error.status, body, { 'Cache-Control': 'no-store', ...error.headers });
}
