import type { IncomingMessage } from 'node:http';

/** The request says its body is a multipart/form-data form (parameters such as the boundary aside). */
export function isMultipartForm(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.split(';')[0]!.trim().toLowerCase() === 'multipart/form-data';
}

/**
 * The body declares more than `maxBytes`, so it can be refused before a byte is
 * read. Content-Length is trusted only without Transfer-Encoding (RFC 9112 6.3); a
 * chunked body declares nothing and is counted as it streams.
 */
export function declaresMoreThan(req: IncomingMessage, maxBytes: number): boolean {
  const declared = req.headers['content-length'];
  return declared !== undefined && req.headers['transfer-encoding'] === undefined && Number(declared) > maxBytes;
}
