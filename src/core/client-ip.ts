import type { IncomingMessage } from 'node:http';

/**
 * The client address. Behind a proxy (TRUST_PROXY=true) it is the left-most entry
 * of X-Forwarded-For that parses as an address; otherwise the socket's peer, since a
 * client can put anything it likes in that header.
 */
export function clientIp(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const header = req.headers['x-forwarded-for'];
    const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim();
    if (first && first.length <= 64 && /^[0-9a-fA-F.:]+$/.test(first)) return first;
  }
  return req.socket?.remoteAddress ?? 'unknown';
}
