import type { IncomingMessage } from 'node:http';

/**
 * For `Expect: 100-continue` (server.ts): false when the upload route at `path`
 * would refuse this request before reading its body (`precheck` throws), so the
 * client is told at once instead of being invited to send megabytes that are then
 * thrown away. Requests for other routes are not this check's business: true.
 */
export function wouldAcceptUpload(path: string, precheck: (req: IncomingMessage) => void): (req: IncomingMessage) => boolean {
  return (req) => {
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== path) return true;
    try {
      precheck(req);
      return true;
    } catch {
      return false;
    }
  };
}
