import type { RenderedError } from '../../http/client-error.js';
import type { HttpError } from '../../http/errors.js';

/** The site's failure envelope: {success: false, error, code, field?}. */
export function renderSiteError(error: HttpError): RenderedError {
  const body: Record<string, unknown> = { success: false, error: error.message, code: error.code };
  if (error.field) body.field = error.field;
  return { contentType: JSON_TYPE, body: JSON.stringify(body) };
}

const JSON_TYPE = 'application/json; charset=utf-8';
