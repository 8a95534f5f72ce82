import type { HttpError } from '../core/errors.js';
import { sendJson, sendText } from '../core/respond.js';
import type { ImghostContext } from './context.js';

/**
 * The image host answers /img and /SF errors as plain text (`Image not found`,
 * `Icon not found`) and its JSON API as {success: false, message}.
 */
export function renderImghostError(ctx: ImghostContext, error: HttpError): void {
  const headers = { 'Cache-Control': 'no-store', ...error.headers };
  if (error.plain) sendText(ctx, error.status, error.message, headers);
  else sendJson(ctx, error.status, { success: false, message: error.message, code: error.code }, headers);
}
