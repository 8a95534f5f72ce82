import type { Readable } from 'node:stream';
import { Agent, request, type Dispatcher } from 'undici';
import type { SiteSettings } from '../settings.js';
import { AnswerTooLarge } from './failures.js';
import type { CallBounds, ImageHostLimits } from './limits.js';

// What every call to the image host starts with: one pooled undici Agent (every
// timeout explicit), the upload token as a Bearer header, the site's user agent
// and the request id; and what it ends with: the answer's status and its text,
// read up to the call's bound. Redirects are never followed. Failing to reach
// the image host throws undici's or the socket's error as it came: the calls say
// what it means to their callers (failures.ts).

const USER_AGENT = 'launcher-web-site';

/** IMAGE_HOST_URL, IMAGE_HOST_PUBLIC_URL (both without a trailing slash) and IMGHOST_UPLOAD_TOKEN. */
export type ImageHostSettings = Pick<SiteSettings, 'imageHostUrl' | 'imageHostPublicUrl' | 'imghostUploadToken'>;

export interface Call {
  method: 'POST' | 'DELETE';
  /** Path and query on the image host, already encoded. */
  path: string;
  bounds: CallBounds;
  /** The site request this call serves, so one upload can be followed through both services' logs. */
  requestId?: string;
  /** Sent as it is produced, with backpressure (chunked): never held whole. */
  body?: { contentType: string; chunks: AsyncIterable<Buffer> };
  signal?: AbortSignal;
}

/** The image host's answer, unchecked: answer.ts checks it. */
export interface RawAnswer {
  status: number;
  text: string;
}

export interface Connection {
  send(call: Call): Promise<RawAnswer>;
  close(): Promise<void>;
}

export function openConnection(settings: ImageHostSettings, limits: ImageHostLimits): Connection {
  const agent = new Agent({
    connect: { timeout: limits.connectTimeoutMs },
    headersTimeout: limits.headersTimeoutMs,
    bodyTimeout: limits.bodyTimeoutMs,
    connections: limits.connections,
  });
  // The token is only ever put in this header: never logged, never in an answer.
  const authorization = settings.imghostUploadToken === undefined ? undefined : `Bearer ${settings.imghostUploadToken}`;

  async function send(call: Call): Promise<RawAnswer> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT };
    if (call.requestId !== undefined) headers['x-request-id'] = call.requestId;
    if (authorization !== undefined) headers.authorization = authorization;
    if (call.body !== undefined) headers['content-type'] = call.body.contentType;
    const response = await request(`${settings.imageHostUrl}${call.path}`, {
      dispatcher: agent,
      method: call.method,
      headers,
      // undici takes an async iterable body (written with backpressure, chunked);
      // its type declarations only lag behind its documentation.
      body: call.body?.chunks as Readable | undefined,
      signal: call.signal,
      headersTimeout: call.bounds.headersTimeoutMs,
      bodyTimeout: call.bounds.bodyTimeoutMs,
    });
    return { status: response.statusCode, text: await readText(response, call.bounds.maxAnswerBytes) };
  }

  return { send, close: () => agent.close() };
}

/** The answer's body as text, refused (AnswerTooLarge) past `maxBytes`, declared or counted. */
async function readText(response: Dispatcher.ResponseData, maxBytes: number): Promise<string> {
  const body = response.body;
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    body.on('error', () => {});
    body.destroy();
    throw new AnswerTooLarge(`answer of ${declared} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop by a throw destroys the body, which closes its connection.
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new AnswerTooLarge(`answer over ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
