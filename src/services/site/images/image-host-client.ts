import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { HttpError } from '../../../http/errors.js';
import { AnswerShapeError, failureMessageOf, uploadedImageFrom, type UploadedImage } from './image-host-answer.js';
import type { CheckedImage } from './image-part.js';
import type { ImageHostLimits } from './limits.js';

// The site's side of POST {IMAGE_HOST_URL}/api/upload: the checked image part is
// relayed as a new multipart request while it is still arriving from the user,
// chunk by chunk with backpressure, never held whole. One pooled undici Agent with
// every timeout explicit (undici's own are 300 s). Redirects are never followed.

const USER_AGENT = 'launcher-web-site';
const noop = () => {};

export interface ImageHostConfig {
  /** IMAGE_HOST_URL, without a trailing slash. */
  url: string;
  /** IMAGE_HOST_PUBLIC_URL, without a trailing slash. */
  publicUrl: string;
  /** IMGHOST_UPLOAD_TOKEN: sent as a Bearer token, never logged or answered. */
  token: string | undefined;
}

/** One image on its way to the image host. */
export interface Relay {
  /**
   * Resolves once the image's last byte has been handed on. Rejects with the
   * client's error (413, a truncated form) when the part fails, or with a 502
   * when the image host fails first.
   */
  readonly contentSent: Promise<void>;
  /** The client's form is complete and valid: end the upstream request. */
  release(): void;
  /** Abandons the upstream request mid-body, so the image host keeps nothing. */
  abort(): void;
  /** The image host's answer, checked and made absolute; rejects with a 502. */
  readonly answer: Promise<UploadedImage>;
}

export interface ImageHostClient {
  relay(image: CheckedImage, requestId: string): Relay;
  close(): Promise<void>;
}

export function createImageHostClient(config: ImageHostConfig, limits: ImageHostLimits): ImageHostClient {
  const agent = new Agent({
    connect: { timeout: limits.connectTimeoutMs },
    headersTimeout: limits.headersTimeoutMs,
    bodyTimeout: limits.bodyTimeoutMs,
    connections: limits.connections,
    maxResponseSize: limits.maxAnswerBytes,
  });
  const uploadUrl = `${config.url}/api/upload`;
  const authorization = config.token === undefined ? undefined : `Bearer ${config.token}`;

  function relay(image: CheckedImage, requestId: string): Relay {
    const controller = new AbortController();
    const sent = deferred<void>();
    const released = deferred<void>();
    // Either may end up unawaited (the image host failed first, the client went away).
    sent.promise.catch(noop);
    released.promise.catch(noop);
    const boundary = `----launcher-web-${randomBytes(16).toString('hex')}`;

    async function* body(): AsyncGenerator<Buffer> {
      yield Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="${image.filename}"\r\n` +
          `Content-Type: ${image.mime}\r\n\r\n`,
        'latin1',
      );
      try {
        for (const chunk of image.head) yield chunk;
        for (;;) {
          const next = await image.rest.next();
          if (next.done === true) break;
          yield next.value;
        }
      } catch (error) {
        // The client's part failed (too large, cut off): it is their error, and
        // throwing here leaves the upstream body unfinished, so it is refused.
        sent.reject(error);
        throw error;
      }
      sent.resolve();
      // The closing delimiter only once the whole client form is known good: until
      // then the image host holds an unfinished form it will throw away.
      await released.promise;
      yield Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1');
    }

    const answer = (async (): Promise<UploadedImage> => {
      const headers: Record<string, string> = {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        accept: 'application/json',
        'user-agent': USER_AGENT,
        // Lets one upload be followed through both services' logs.
        'x-request-id': requestId,
      };
      if (authorization !== undefined) headers.authorization = authorization;
      let text: string;
      let status: number;
      try {
        // undici takes an async iterable body (written with backpressure, chunked);
        // its type declarations only lag behind its documentation.
        const streamed = body() as unknown as Readable;
        const response = await request(uploadUrl, { dispatcher: agent, method: 'POST', headers, body: streamed, signal: controller.signal });
        status = response.statusCode;
        text = await response.body.text();
      } catch (error) {
        throw upstreamFailed(transportFailure(error));
      }
      if (status !== 200) throw upstreamFailed(statusFailure(status, text));
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw upstreamFailed('The image host answered something that is not JSON');
      }
      try {
        return uploadedImageFrom(parsed, config.publicUrl);
      } catch (error) {
        if (error instanceof AnswerShapeError) throw upstreamFailed(`The image host gave an unexpected answer: ${error.message}`);
        throw error;
      }
    })();
    // An answer before the whole image was sent is a failure (the image host
    // refused the upload, or went away): the client hears about it at once.
    answer.then(
      () => sent.reject(upstreamFailed('The image host answered before the upload was complete')),
      (error: unknown) => sent.reject(error),
    );
    answer.catch(noop);

    return {
      contentSent: sent.promise,
      release: () => released.resolve(),
      abort: () => {
        released.reject(new Error('upload abandoned'));
        controller.abort();
      },
      answer,
    };
  }

  return { relay, close: () => agent.close() };
}

/** A 502 whose message says what went wrong with the image host, never how to reach it. */
export function upstreamFailed(message: string): HttpError {
  return new HttpError(502, 'UPSTREAM_FAILED', message, { cause: new Error(message) });
}

function statusFailure(status: number, text: string): string {
  const said = failureMessageOf(text);
  if (status === 400) return `The image host refused the image${said ? `: ${said}` : ''}`;
  if (status === 401 || status === 403) return `The image host refused the site's upload token (answered ${status}); check IMGHOST_UPLOAD_TOKEN`;
  if (status === 413) return 'The image host refused the image as too large';
  return `The image host failed (answered ${status})`;
}

/** What went wrong reaching the image host, by undici's or the socket's error code (also the versions feature's). */
export function transportFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'The image host did not accept a connection in time';
    case 'UND_ERR_HEADERS_TIMEOUT':
      return 'The image host did not answer in time';
    case 'UND_ERR_BODY_TIMEOUT':
      return 'The image host stopped in the middle of its answer';
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return 'The image host sent an answer too large to be an upload answer';
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `The image host could not be reached (${code})`;
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
    case 'EPIPE':
      return 'The image host closed the connection';
    default:
      return `The image host could not be reached${typeof code === 'string' ? ` (${code})` : ''}`;
  }
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

/** A promise settled from outside; the first settlement wins, later ones are ignored. */
export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
