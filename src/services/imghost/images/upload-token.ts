import { createHash, timingSafeEqual } from 'node:crypto';
import { HttpError } from '../../../http/errors.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Checks `Authorization: Bearer <token>` against IMGHOST_UPLOAD_TOKEN; without a
 * configured token, uploads are open (as the old service's were). Both sides are
 * hashed first so the comparison is constant-time whatever their lengths: neither
 * the token's bytes nor its length leak through timing.
 */
export function createTokenCheck(token: string | undefined): (authorization: string | undefined) => void {
  if (token === undefined) return () => {};
  const expected = digest(token);
  return (authorization) => {
    const sent = BEARER.exec(authorization ?? '')?.[1];
    if (sent === undefined || !timingSafeEqual(digest(sent), expected)) {
      throw new HttpError(401, 'UNAUTHORIZED', 'Missing or invalid upload token', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    }
  };
}
