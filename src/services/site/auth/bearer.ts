import type { IncomingMessage } from 'node:http';

/** RFC 6750 2.1: the scheme is case-insensitive; one or more spaces before the credentials. */
const BEARER = /^bearer +(\S*) *$/i;

/**
 * The credentials of `Authorization: Bearer ...`, or undefined when the request
 * sends no bearer credentials (no header, or another scheme). An empty or
 * malformed one is returned as it is, for the caller to refuse (401).
 */
export function bearerSecret(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const match = BEARER.exec(header);
  if (match) return match[1]!;
  return /^bearer(\s|$)/i.test(header) ? '' : undefined;
}
