import type { RenderedError } from '../../http/client-error.js';
import type { HttpError } from '../../http/errors.js';

/**
 * The image host answers /img and /SF errors as plain text (`Image not found`,
 * `Icon not found`) and its JSON API as {success: false, message}.
 */
export function renderImghostError(error: HttpError): RenderedError {
  if (error.plain) return { contentType: 'text/plain; charset=utf-8', body: error.message };
  // `error` and `field` beside the old service's `message`: the site's answers name them so.
  const body = { success: false, message: error.message, error: error.message, code: error.code, ...(error.field ? { field: error.field } : {}) };
  return { contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) };
}
