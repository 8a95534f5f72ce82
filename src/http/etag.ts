import { createHash } from 'node:crypto';

/**
 * A strong ETag (RFC 9110 8.8.3) that changes whenever one of `parts` does: the
 * first 160 bits of their SHA-256 (parts kept apart by a NUL), base64url, quoted.
 * Made once per content, never per request.
 */
export function strongEtag(...parts: Array<string | Uint8Array>): string {
  const hash = createHash('sha256');
  parts.forEach((part, index) => {
    if (index > 0) hash.update('\u0000');
    hash.update(part);
  });
  return `"${hash.digest('base64url').slice(0, 27)}"`;
}
