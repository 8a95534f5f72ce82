import { pipeline } from 'node:stream/promises';
import { Agent, request, type Dispatcher } from 'undici';
import type { SiteContext } from '../context.js';
import { upstreamFailed, transportFailure } from './image-host-client.js';
import { imageNotFound, isImagePath } from './image-redirect.js';
import { MAX_IMAGE_BYTES } from './limits.js';

// GET /img/:timestamp/:file when the image host is reached over plain http
// (IMAGE_HOST_PUBLIC_URL http:, as under `npm start` or on a LAN): the image is
// streamed from IMAGE_HOST_URL through the site, never held whole, so that a page
// loads it from its own origin and the pages' CSP allows no image over http at
// all. On https the site redirects instead (image-redirect.ts), which costs it
// nothing per image.
//
// Only what an image needs crosses: its type (image/* or refused), length,
// ETag and caching headers; a conditional request is asked upstream and its 304
// relayed. The image host's own redirect (a bucket's public URL) is relayed only
// to an https target. Nothing is followed.

const USER_AGENT = 'launcher-web-site';
/** Previews and originals are at most the upload limit; the answer's head is checked against it before a byte is relayed. */
const MAX_PROXIED_BYTES = MAX_IMAGE_BYTES;
const FALLBACK_CACHE_CONTROL = 'public, max-age=86400';

export interface ImageProxyLimits {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  connections: number;
}

export const DEFAULT_IMAGE_PROXY_LIMITS: ImageProxyLimits = { connectTimeoutMs: 5_000, headersTimeoutMs: 15_000, bodyTimeoutMs: 15_000, connections: 16 };

export interface ImageProxy {
  handler(ctx: SiteContext): Promise<void>;
  close(): Promise<void>;
}

export function createImageProxy(imageHostUrl: string, limits: ImageProxyLimits = DEFAULT_IMAGE_PROXY_LIMITS): ImageProxy {
  const base = imageHostUrl.replace(/\/+$/, '');
  const agent = new Agent({
    connect: { timeout: limits.connectTimeoutMs },
    headersTimeout: limits.headersTimeoutMs,
    bodyTimeout: limits.bodyTimeoutMs,
    connections: limits.connections,
  });

  async function handler(ctx: SiteContext): Promise<void> {
    const { timestamp, file } = ctx.params;
    if (!isImagePath(timestamp, file)) throw imageNotFound();
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, 'x-request-id': ctx.id };
    const ifNoneMatch = ctx.req.headers['if-none-match'];
    if (typeof ifNoneMatch === 'string' && ifNoneMatch.length <= 1024) headers['if-none-match'] = ifNoneMatch;
    // The client going away ends the upstream request too.
    const controller = new AbortController();
    const abort = () => controller.abort();
    ctx.res.once('close', abort);
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(`${base}/img/${timestamp}/${file}`, {
        method: ctx.method === 'HEAD' ? 'HEAD' : 'GET',
        headers,
        dispatcher: agent,
        signal: controller.signal,
      });
    } catch (error) {
      ctx.res.off('close', abort);
      throw upstreamFailed(transportFailure(error));
    }
    try {
      await relay(ctx, answer);
    } finally {
      ctx.res.off('close', abort);
      // Whatever was not relayed is dropped, so the connection can serve another request.
      answer.body.resume();
    }
  }

  return { handler, close: () => agent.close() };
}

async function relay(ctx: SiteContext, answer: Dispatcher.ResponseData): Promise<void> {
  const status = answer.statusCode;
  const cacheControl = single(answer.headers['cache-control']) ?? FALLBACK_CACHE_CONTROL;
  const etag = single(answer.headers.etag);
  if (status === 404) throw imageNotFound();
  if (status === 304) {
    ctx.res.writeHead(304, { 'Cache-Control': cacheControl, ...(etag ? { ETag: etag } : {}) }).end();
    return;
  }
  if (status === 301 || status === 302 || status === 307 || status === 308) {
    const location = single(answer.headers.location);
    if (location === undefined || !isHttpsUrl(location)) throw upstreamFailed('The image host redirected to an address that is not https');
    ctx.res.writeHead(302, { Location: location, 'Cache-Control': cacheControl, 'Content-Length': 0 }).end();
    return;
  }
  if (status !== 200) throw upstreamFailed(`The image host answered ${status}`);
  const type = single(answer.headers['content-type']);
  const length = Number(single(answer.headers['content-length']));
  if (type === undefined || !/^image\/[a-z0-9.+-]+$/i.test(type)) throw upstreamFailed('The image host answered something that is not an image');
  if (!Number.isSafeInteger(length) || length < 0 || length > MAX_PROXIED_BYTES) throw upstreamFailed('The image host answered an image of no or too large a length');
  ctx.res.writeHead(200, { 'Content-Type': type, 'Content-Length': length, 'Cache-Control': cacheControl, ...(etag ? { ETag: etag } : {}) });
  if (ctx.method === 'HEAD') {
    ctx.res.end();
    return;
  }
  try {
    await pipeline(answer.body, ctx.res);
  } catch {
    // pipeline destroyed both sides: the client sees a cut connection, never a short
    // body that looks whole (Content-Length was sent).
  }
}

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
