import type { Readable } from 'node:stream';
import { request } from 'undici';
import type { OAuthConfig } from '../settings.js';
import { createOutboundAgent } from '../outbound/outbound-agent.js';
import type { OutboundSettings } from '../outbound/proxy-settings.js';
import { HttpError } from '../../../http/errors.js';
import { isObject } from '../../../lib/json-object.js';
import { readLimited } from '../../../lib/read-limited.js';

// The two calls the site makes to the identity provider, over one pooled undici
// Agent. Every limit is explicit: undici's own timeouts are 300 s and its bodies
// unbounded, far too generous for a login a user is waiting on. The Agent never
// follows redirects (undici's `request` does not unless told to): a token endpoint
// answering 3xx is a failing provider, and following it could send the code and
// the client secret somewhere else. It goes through the proxy of HTTPS_PROXY
// unless NO_PROXY names the provider, and trusts NODE_EXTRA_CA_CERTS's roots
// (outbound/). The provider may be on the operator's own network, so no address
// policy applies: its URLs are the operator's configuration, not a user's input.

export interface ProviderLimits {
  connectTimeoutMs: number;
  /** Time to the response headers. */
  headersTimeoutMs: number;
  /** Longest pause between two chunks of the body. */
  bodyTimeoutMs: number;
  /** Whole exchange, so a provider dripping bytes cannot hold a request forever. */
  totalTimeoutMs: number;
  maxBodyBytes: number;
}

export const DEFAULT_PROVIDER_LIMITS: ProviderLimits = {
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 10_000,
  totalTimeoutMs: 15_000,
  maxBodyBytes: 1024 * 1024,
};

const MAX_CONNECTIONS_PER_ORIGIN = 8;
/** Tokens go into an Authorization header: visible ASCII only, bounded. */
const ACCESS_TOKEN = /^[\x21-\x7E]{1,8192}$/;
const USER_AGENT = 'launcher-web';

export interface ProviderClient {
  /** Authorization code + PKCE verifier → access token (RFC 6749 4.1.3, RFC 7636 4.5). */
  exchangeCode(oauth: OAuthConfig, code: string, redirectUri: string, verifier: string): Promise<string>;
  /** The userinfo document, parsed JSON of unknown shape. */
  fetchUserinfo(oauth: OAuthConfig, accessToken: string): Promise<unknown>;
  close(): Promise<void>;
}

const NO_OUTBOUND: OutboundSettings = { httpsProxy: undefined, httpProxy: undefined, noProxy: '', ca: undefined };

export function createProviderClient(limits: ProviderLimits = DEFAULT_PROVIDER_LIMITS, outbound: OutboundSettings = NO_OUTBOUND): ProviderClient {
  const agent = createOutboundAgent({
    outbound,
    connect: { timeout: limits.connectTimeoutMs, ...(outbound.ca ? { ca: outbound.ca } : {}) },
    connectTimeoutMs: limits.connectTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    bodyTimeout: limits.bodyTimeoutMs,
    connections: MAX_CONNECTIONS_PER_ORIGIN,
    maxResponseSize: limits.maxBodyBytes,
  });

  const call = async (
    what: string,
    url: string,
    init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  ): Promise<unknown> => {
    try {
      const response = await request(url, {
        dispatcher: agent,
        method: init.method,
        headers: { accept: 'application/json', 'user-agent': USER_AGENT, ...init.headers },
        body: init.body,
        signal: AbortSignal.timeout(limits.totalTimeoutMs),
      });
      if (response.statusCode < 200 || response.statusCode > 299) {
        await response.body.dump().catch(() => {});
        throw new Error(`answered ${response.statusCode}`);
      }
      const text = await readText(response.body, limits.maxBodyBytes, response.headers['content-length']);
      try {
        return JSON.parse(text);
      } catch {
        throw new Error('answered something that is not JSON');
      }
    } catch (error) {
      throw upstreamFailed(`${what} ${describe(error)}`);
    }
  };

  return {
    async exchangeCode(oauth, code, redirectUri, verifier) {
      const form = new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: oauth.clientId,
        client_secret: oauth.clientSecret,
        code_verifier: verifier,
      });
      const answer = await call('token endpoint', oauth.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      });
      const token = isObject(answer) ? answer.access_token : undefined;
      if (typeof token !== 'string' || !ACCESS_TOKEN.test(token)) throw upstreamFailed('token endpoint gave no usable access_token');
      return token;
    },
    async fetchUserinfo(oauth, accessToken) {
      return call('userinfo endpoint', oauth.userinfoUrl, {
        method: 'GET',
        headers: { authorization: `Bearer ${accessToken}` },
      });
    },
    close: () => agent.close(),
  };
}

export function upstreamFailed(reason: string): HttpError {
  // The reason goes to the log (as the cause), never to the client.
  return new HttpError(502, 'UPSTREAM_FAILED', 'The identity provider did not answer as expected; try again later', {
    cause: new Error(reason),
  });
}

/** The body as text, at most `max` bytes of it (a declared larger one is refused unread). */
async function readText(body: Readable, max: number, declared: unknown): Promise<string> {
  if (typeof declared === 'string' && Number(declared) > max) {
    body.destroy();
    throw new Error(`declared a body over ${max} bytes`);
  }
  const read = await readLimited(body, max);
  if (read.ok) return read.bytes.toString('utf8');
  body.destroy();
  if (read.reason === 'too-large') throw new Error(`sent a body over ${max} bytes`);
  throw read.error ?? new Error('closed the connection before the end of its body');
}

function describe(error: unknown): string {
  if (error instanceof HttpError) return error.message;
  if (error instanceof Error) {
    const code = (error as Error & { code?: unknown }).code;
    if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'timed out';
    return typeof code === 'string' ? `failed (${code})` : error.message;
  }
  return 'failed';
}
