import { HttpError, badRequest } from '../errors.js';
import { parseHeaderValue } from './header-params.js';

// RFC 2046 §5.1.1: boundary := 0*69<bchars> bcharsnospace, so 1 to 70 characters
// from a fixed alphabet, where a space may appear but not last. The alphabet has no
// CR, LF or '-' problem for the scanner: it relies on CR appearing only at the start
// of "\r\n--" + boundary.
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

const MEDIA_TYPE = 'multipart/form-data';

/**
 * The boundary parameter of a multipart/form-data Content-Type, quoted or not.
 * Throws 415 when the media type is something else, 400 when the header is missing
 * or malformed or the boundary is absent or invalid.
 */
export function boundaryFrom(contentType: string | undefined): string {
  if (contentType === undefined || contentType.trim() === '') {
    throw badRequest('Missing Content-Type header');
  }
  const semicolon = contentType.indexOf(';');
  const mediaType = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim();
  if (mediaType.toLowerCase() !== MEDIA_TYPE) {
    throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${MEDIA_TYPE}`);
  }
  const parsed = parseHeaderValue(contentType);
  if (parsed === null) throw badRequest('Malformed Content-Type header');
  const boundary = parsed.params.get('boundary');
  if (boundary === undefined) throw badRequest('Content-Type has no multipart boundary');
  if (!BOUNDARY.test(boundary)) {
    throw badRequest('Invalid multipart boundary: 1 to 70 characters allowed by RFC 2046');
  }
  return boundary;
}
