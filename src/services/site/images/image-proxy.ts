import { redirect, sendNoContent, sendStreamed } from '../../../http/answer/index.js';
import type { ServerResponse } from 'node:http';
import { Agent, request, type Dispatcher } from 'undici';
import { HttpError } from '../../../http/errors.js';
import { rateLimited } from '../../../http/rate-limited.js';
import type { SiteContext } from '../context.js';
import { transportFailure, upstreamFailed } from '../image-host/failures.js';
import { imageNotFound, isImagePath } from './image-redirect.js';
import { MAX_IMAGE_BYTES } from './limits.js';
import { createProxyHolds, type HeldBytes } from './proxy-holds.js';

// GET /img/:timestamp/:file when the image host is reached over plain http
// (IMAGE_HOST_PUBLIC_URL http:, as under `npm start` or on a LAN): the image is
// fetched from IMAGE_HOST_URL and sent by the site, so that a page loads it from
// its own origin and the pages' CSP allows no image over http at all. On https the
// site redirects instead (image-redirect.ts), which costs it nothing per image.
//
// Each image is read whole from the image host before a byte of it is sent (it is
// at most 8 MiB), so the connection to the image host is free again as soon as the
// image host has sent it, whatever the client does. Streamed through, one answer
// held its connection for as long as its client did not read, and sixteen such
// clients held all of them: every other visitor's image waited. A send timeout
// alone would only have shortened that. What a client that does not read still
// holds is the memory of its answer: bounded by one budget for the process
// (proxy-holds.ts: stalled sends give their bytes up to new answers), and by a
// send that takes no chunk for SEND_IDLE_TIMEOUT_MS being cut.
//
// Only what an image needs crosses: its type (image/* or refused), length,
// ETag and caching headers; a conditional request is asked upstream and its 304
// relayed. The image host's own redirect (a bucket's public URL) is relayed only
// to an https target. Nothing is followed.

const USER_AGENT = 'launcher-web-site';
/** Previews and originals are at most the upload limit; the answer's head is checked against it before a byte is read. */
const MAX_PROXIED_BYTES = MAX_IMAGE_BYTES;
const FALLBACK_CACHE_CONTROL = 'public, max-age=86400';
const MiB = 1024 * 1024;

/**
 * Image answers one client address may have in flight at once (from the request to
 * the last byte handed to its connection). A browser opens at most 6 connections to
 * one host over HTTP/1.1, so a page full of images never meets it; two more leave
 * room for a second person behind the same address. Past it: 429 RATE_LIMITED.
 */
export const MAX_IMAGE_ANSWERS_PER_ADDRESS = 8;
/** Bytes of images read and not yet sent, over all answers: eight full-size images. Past it: 503 UNAVAILABLE. */
export const PROXY_BUFFER_BYTES = 64 * MiB;
/** A client's connection that takes no chunk of its image for this long is cut, and its bytes let go. */
export const SEND_IDLE_TIMEOUT_MS = 10_000;
/** What a send writes at once: the unit of progress the idle timeout watches. */
const SEND_CHUNK_BYTES = 64 * 1024;

export interface ImageProxyLimits {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  connections: number;
  perAddress: number;
  bufferBytes: number;
  sendIdleTimeoutMs: number;
}

export const DEFAULT_IMAGE_PROXY_LIMITS: ImageProxyLimits = {
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 15_000,
  bodyTimeoutMs: 15_000,
  connections: 16,
  perAddress: MAX_IMAGE_ANSWERS_PER_ADDRESS,
  bufferBytes: PROXY_BUFFER_BYTES,
  sendIdleTimeoutMs: SEND_IDLE_TIMEOUT_MS,
};

export interface ImageProxy {
  handler(ctx: SiteContext): Promise<void>;
  close(): Promise<void>;
}

const tooManyAtOnce = () =>
  rateLimited({ allowed: false, remaining: 0, retryAfterSeconds: 1 }, `At most ${MAX_IMAGE_ANSWERS_PER_ADDRESS} images at once from one address; try again in a moment`);
const busy = () => new HttpError(503, 'UNAVAILABLE', 'Server busy, try again shortly', { headers: { 'Retry-After': '1' } });

export function createImageProxy(imageHostUrl: string, limits: ImageProxyLimits = DEFAULT_IMAGE_PROXY_LIMITS): ImageProxy {
  const base = imageHostUrl.replace(/\/+$/, '');
  const agent = new Agent({
    connect: { timeout: limits.connectTimeoutMs },
    headersTimeout: limits.headersTimeoutMs,
    bodyTimeout: limits.bodyTimeoutMs,
    connections: limits.connections,
  });
  const holds = createProxyHolds({ perAddress: limits.perAddress, bufferBytes: limits.bufferBytes });

  async function handler(ctx: SiteContext): Promise<void> {
    const { timestamp, file } = ctx.params;
    if (!isImagePath(timestamp, file)) throw imageNotFound();
    const address = ctx.ip;
    if (!holds.enter(address)) throw tooManyAtOnce();
    try {
      await proxy(ctx, `${base}/img/${timestamp}/${file}`);
    } finally {
      holds.leave(address);
    }
  }

  async function proxy(ctx: SiteContext, url: string): Promise<void> {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, 'x-request-id': ctx.id };
    const ifNoneMatch = ctx.req.headers['if-none-match'];
    if (typeof ifNoneMatch === 'string' && ifNoneMatch.length <= 1024) headers['if-none-match'] = ifNoneMatch;
    // The client going away ends the upstream request too.
    const controller = new AbortController();
    const abort = () => controller.abort();
    ctx.res.once('close', abort);
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(url, { method: ctx.method === 'HEAD' ? 'HEAD' : 'GET', headers, dispatcher: agent, signal: controller.signal });
    } catch (error) {
      ctx.res.off('close', abort);
      throw upstreamFailed(transportFailure(error));
    }
    let image: { head: ImageHead; chunks: Buffer[]; held: HeldBytes } | undefined;
    try {
      const head = imageHead(ctx, answer);
      if (head === undefined) return;
      const held = holds.reserve(head.length);
      if (held === undefined) throw busy();
      try {
        image = { head, chunks: await readWhole(answer.body, head.length), held };
      } catch (error) {
        held.release();
        // The client went away (the abort above): there is nobody to answer.
        if (controller.signal.aborted) return;
        throw error instanceof HttpError ? error : upstreamFailed(transportFailure(error));
      }
    } finally {
      ctx.res.off('close', abort);
      // Whatever was not read is dropped, so the connection can serve another request.
      answer.body.resume();
    }
    const { head, chunks, held } = image;
    await sendStreamed(ctx, 200, imageHeaders(head), (res) => send(res, chunks, held, limits.sendIdleTimeoutMs));
  }

  return { handler, close: () => agent.close() };
}

interface ImageHead {
  type: string;
  length: number;
  cacheControl: string;
  etag: string | undefined;
}

/**
 * The image host's answer head: an image to read (a 200 to a GET), or answered here
 * already (undefined: 304, a redirect, a HEAD); a failure is thrown.
 */
function imageHead(ctx: SiteContext, answer: Dispatcher.ResponseData): ImageHead | undefined {
  const status = answer.statusCode;
  const cacheControl = single(answer.headers['cache-control']) ?? FALLBACK_CACHE_CONTROL;
  const etag = single(answer.headers.etag);
  if (status === 404) throw imageNotFound();
  if (status === 304) {
    sendNoContent(ctx, 304, { 'Cache-Control': cacheControl, ...(etag ? { ETag: etag } : {}) });
    return undefined;
  }
  if (status === 301 || status === 302 || status === 307 || status === 308) {
    const location = single(answer.headers.location);
    if (location === undefined || !isHttpsUrl(location)) throw upstreamFailed('The image host redirected to an address that is not https');
    redirect(ctx, location, 302, undefined, cacheControl);
    return undefined;
  }
  if (status !== 200) throw upstreamFailed(`The image host answered ${status}`);
  const type = single(answer.headers['content-type']);
  const length = Number(single(answer.headers['content-length']));
  if (type === undefined || !/^image\/[a-z0-9.+-]+$/i.test(type)) throw upstreamFailed('The image host answered something that is not an image');
  if (!Number.isSafeInteger(length) || length < 0 || length > MAX_PROXIED_BYTES) throw upstreamFailed('The image host answered an image of no or too large a length');
  const head = { type, length, cacheControl, etag };
  if (ctx.method === 'HEAD') {
    void sendStreamed(ctx, 200, imageHeaders(head));
    return undefined;
  }
  return head;
}

/** The head of an image sent on: the image host's type, length, caching and tag. */
function imageHeaders(head: ImageHead): Record<string, string | number> {
  return { 'Content-Type': head.type, 'Content-Length': head.length, 'Cache-Control': head.cacheControl, ...(head.etag ? { ETag: head.etag } : {}) };
}

/** The body's chunks, exactly `length` bytes of them (its Content-Length), or a throw. */
async function readWhole(body: Dispatcher.ResponseData['body'], length: number): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > length) throw upstreamFailed('The image host sent more than its Content-Length');
    chunks.push(chunk);
  }
  if (size !== length) throw upstreamFailed('The image host sent less than its Content-Length');
  return chunks;
}

/**
 * Hands the chunks to the client's connection, each chunk's bytes let go of as it
 * leaves. No chunk taken for `idleMs`, or the bytes wanted by a new answer while
 * this one stalls (proxy-holds.ts): the connection is cut, which the client sees
 * as a cut answer, never a short one that looks whole (Content-Length was sent).
 */
function send(res: ServerResponse, chunks: Buffer[], held: HeldBytes, idleMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    let next = 0;
    let offset = 0;
    let timer: NodeJS.Timeout | undefined;
    let over = false;
    const cut = () => res.destroy();
    const arm = () => {
      clearTimeout(timer);
      if (!over) timer = setTimeout(cut, idleMs);
    };
    const done = () => {
      if (over) return;
      over = true;
      clearTimeout(timer);
      res.off('drain', pump);
      res.off('close', done);
      res.off('finish', done);
      held.release();
      resolve();
    };
    function pump(): void {
      arm();
      while (next < chunks.length) {
        const chunk = chunks[next]!;
        const part = chunk.subarray(offset, offset + SEND_CHUNK_BYTES);
        offset += part.length;
        if (offset >= chunk.length) {
          // Let go of each chunk once it is handed over, so only what is left stays.
          chunks[next++] = EMPTY;
          offset = 0;
        }
        const written = () => {
          held.sent(part.length);
          arm();
        };
        if (next === chunks.length) {
          res.end(part, written);
          return;
        }
        if (!res.write(part, written)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    }
    res.once('close', done);
    res.once('finish', done);
    held.sending(cut);
    if (res.destroyed) return done();
    pump();
  });
}

const EMPTY = Buffer.alloc(0);

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}
