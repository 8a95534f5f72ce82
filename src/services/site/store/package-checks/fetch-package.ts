import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { errorReason } from '../../webhooks/failure-reasons.js';
import type { ImageHostClient } from '../../image-host/client.js';
import type { InspectedPackage } from '../../image-host/package-answer.js';

// Fetching an outside download link for its check: GET under the webhooks' address
// rules (the dispatcher: https, a public address, ports 443, 8443 or
// WEBHOOK_ALLOWED_PORTS, proxied or not), following at most 3 redirects, each
// target checked again by the same dispatcher before it is asked; stopped at the
// time limit and at PACKAGE_MAX_BYTES (a declared larger file is never read; an
// undeclared one is cut one chunk past the limit). The bytes are hashed and sent
// on to the image host's inspection as they arrive; nothing is written here.
//
// A check is also stopped when its process stops (the job loop's signal): closing
// a site never waits out the time limit of a slow download. That says nothing of
// the link, so it is no outcome: CheckInterrupted is thrown, and the worker puts
// the check back in the queue for another process.

export const MAX_REDIRECTS = 3;
export const FETCH_USER_AGENT = 'launcher-web-package-check/1';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface FetchLimits {
  maxBytes: number;
  /** The whole check, fetch and inspection: 60 s. */
  timeoutMs: number;
}

export type FetchOutcome =
  | { kind: 'fetched'; sha256: string; size: number; report: InspectedPackage }
  /** DNS, TLS, connection, a 4xx/5xx, too many redirects, the time limit. */
  | { kind: 'unreachable'; reason: string }
  /** Not a ZIP, fails inspection, too large, a refused address or port. */
  | { kind: 'refused'; reason: string };

class TooLarge extends Error {}

/** The check was stopped with its process, before it had an outcome. */
export class CheckInterrupted extends Error {
  constructor() {
    super('the package check was stopped with its process');
    this.name = 'CheckInterrupted';
  }
}

/** `stop`: aborted when the process stops; the fetch and the inspection end at once, with CheckInterrupted. */
export async function fetchPackage(
  dispatcher: Dispatcher, inspector: ImageHostClient, download: string, limits: FetchLimits, stop?: AbortSignal,
): Promise<FetchOutcome> {
  if (stop?.aborted) throw new CheckInterrupted();
  // One signal for the request, the body and the inspection: the time limit or the stop, whichever comes first.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DOMException('time limit', 'TimeoutError')), limits.timeoutMs);
  const onStop = () => deadline.abort(new CheckInterrupted());
  stop?.addEventListener('abort', onStop, { once: true });
  const outcome = (found: FetchOutcome): FetchOutcome => {
    if (stop?.aborted) throw new CheckInterrupted();
    return found;
  };
  const seconds = Math.round(limits.timeoutMs / 100) / 10;
  const tooLarge = `The file is larger than PACKAGE_MAX_BYTES (${limits.maxBytes} bytes)`;
  try {
    let url = new URL(download);
    for (let redirects = 0; ; redirects++) {
      let answer: Dispatcher.ResponseData;
      try {
        answer = await dispatcher.request({
          origin: url.origin,
          path: url.pathname + url.search,
          method: 'GET',
          headers: { accept: 'application/zip, application/octet-stream;q=0.9, */*;q=0.1', 'user-agent': FETCH_USER_AGENT },
          signal: deadline.signal,
        });
      } catch (error) {
        return outcome(failure(error, url, deadline.signal.aborted, seconds));
      }
      if (REDIRECTS.has(answer.statusCode)) {
        discard(answer.body);
        const location = answer.headers.location;
        if (typeof location !== 'string') return { kind: 'unreachable', reason: `${url.host} answered ${answer.statusCode} without a Location` };
        if (redirects === MAX_REDIRECTS) return { kind: 'unreachable', reason: `more than ${MAX_REDIRECTS} redirects` };
        try {
          url = new URL(location, url);
        } catch {
          return { kind: 'unreachable', reason: `${url.host} redirected to something that is not a URL` };
        }
        continue;
      }
      if (answer.statusCode !== 200) {
        discard(answer.body);
        return { kind: 'unreachable', reason: `${url.host} answered ${answer.statusCode}` };
      }
      const declared = Number(answer.headers['content-length']);
      if (Number.isFinite(declared) && declared > limits.maxBytes) {
        discard(answer.body);
        return { kind: 'refused', reason: tooLarge };
      }
      const hash = createHash('sha256');
      let size = 0;
      const body = answer.body;
      async function* counted(): AsyncGenerator<Buffer> {
        for await (const chunk of body as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > limits.maxBytes) throw new TooLarge();
          hash.update(chunk);
          yield chunk;
        }
      }
      try {
        const inspection = await inspector.inspectPackage(counted(), deadline.signal);
        if (inspection.kind === 'refused') return inspection;
        const { inspected } = inspection;
        const sha256 = hash.digest('hex');
        // The image host hashed what it received: the same bytes, or something broke between.
        if (inspected.sha256 !== sha256 || inspected.size !== size) return { kind: 'unreachable', reason: 'the file changed while it was read' };
        return { kind: 'fetched', sha256, size, report: inspected };
      } catch (error) {
        if (stop?.aborted) throw new CheckInterrupted();
        if (causedBy(error, TooLarge)) return { kind: 'refused', reason: tooLarge };
        if (deadline.signal.aborted) return { kind: 'unreachable', reason: `the download took longer than ${seconds} s` };
        // A failure of the link (cut mid-body) is unreachable; the image host's own is thrown (the check is tried again later).
        if (!body.readableEnded && errorReason(error) !== 'delivery_failed') return { kind: 'unreachable', reason: `${url.host}: ${describeReason(errorReason(error))}` };
        throw error;
      } finally {
        discard(body);
      }
    }
  } finally {
    clearTimeout(timer);
    stop?.removeEventListener('abort', onStop);
  }
}

/** Stops reading an answer: its connection is closed, and the abort error it emits is expected. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

function causedBy(error: unknown, type: new () => Error): boolean {
  let cause: unknown = error;
  for (let depth = 0; cause instanceof Error && depth < 5; depth++) {
    if (cause instanceof type) return true;
    cause = (cause as Error).cause;
  }
  return false;
}

/** The outcome of a request that failed before an answer: a refused target is `refused`, anything else `unreachable`. */
function failure(error: unknown, url: URL, timedOut: boolean, seconds: number): FetchOutcome {
  if (timedOut) return { kind: 'unreachable', reason: `the download took longer than ${seconds} s` };
  const reason = errorReason(error);
  if (reason === 'address_not_allowed') return { kind: 'refused', reason: `${url.host} is, or resolves to, an address that is not public` };
  if (reason === 'port_not_allowed') return { kind: 'refused', reason: `port ${url.port || 443} is not allowed (443, 8443 or WEBHOOK_ALLOWED_PORTS)` };
  if ((error as { code?: unknown })?.code === 'WEBHOOK_SCHEME_REFUSED') return { kind: 'refused', reason: `${url.protocol} links are not fetched: only https` };
  return { kind: 'unreachable', reason: `${url.host}: ${describeReason(reason)}` };
}

function describeReason(reason: string): string {
  switch (reason) {
    case 'dns_failed': return 'the name did not resolve';
    case 'connect_failed': return 'no connection';
    case 'tls_failed': return 'the TLS handshake failed';
    case 'timeout': return 'it did not answer in time';
    default: return 'the request failed';
  }
}
