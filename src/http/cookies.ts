import type { IncomingMessage } from 'node:http';

// Parsing is lenient (RFC 6265 section 5.2 is what browsers do): bad pairs are
// skipped, not fatal. Serializing is strict (section 4.1): we never emit a cookie a
// browser might read differently from what we meant.

// Bounds. Node already refuses request heads over 16 KiB (431), so these only
// bite when that limit is raised; then what fits is parsed and the rest is not,
// rather than dropping every cookie (a big analytics cookie once meant a silent
// logout).

/** Characters of a Cookie header looked at; a pair that crosses the bound is dropped. */
export const MAX_COOKIE_HEADER = 64 * 1024;
/** Pairs looked at (browsers keep about 180 cookies per site). */
export const MAX_COOKIE_PAIRS = 300;
/** A longer pair is skipped: browsers store no cookie over 4096 bytes (room left for spaces). */
export const MAX_COOKIE_PAIR_LENGTH = 4096 + 8;

export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header) return cookies;
  const bound = Math.min(header.length, MAX_COOKIE_HEADER);
  for (let start = 0, pairs = 0; start < bound && pairs < MAX_COOKIE_PAIRS; pairs++) {
    let stop = header.indexOf(';', start);
    if (stop === -1) stop = header.length;
    if (stop > bound) break;
    const pair = header.slice(start, stop);
    start = stop + 1;
    if (pair.length > MAX_COOKIE_PAIR_LENGTH) continue;
    const eq = pair.indexOf('=');
    if (eq === -1) continue;
    const name = pair.slice(0, eq).trim();
    let value = pair.slice(eq + 1).trim();
    if (!name || cookies.has(name)) continue; // the first one wins, as in browsers' ordering
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      cookies.set(name, value.includes('%') ? decodeURIComponent(value) : value);
    } catch {
      cookies.set(name, value);
    }
  }
  return cookies;
}

const requestCookies = new WeakMap<IncomingMessage, Map<string, string>>();

/** Parsed once per request, on first use. */
export function getCookie(req: IncomingMessage, name: string): string | undefined {
  // Most requests (launchers, image clients) send no cookie at all: nothing to
  // parse, and no WeakMap entry to make for every one of them.
  if (req.headers.cookie === undefined) return undefined;
  let cookies = requestCookies.get(req);
  if (!cookies) {
    cookies = parseCookies(req.headers.cookie);
    requestCookies.set(req, cookies);
  }
  return cookies.get(name);
}

export interface CookieOptions {
  maxAgeSeconds?: number;
  path?: string;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const COOKIE_VALUE = /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/;
const PATH_VALUE = /^\/[\x20-\x3A\x3C-\x7E]*$/;

export function serializeCookie(name: string, value: string, options: CookieOptions = {}): string {
  if (!TOKEN.test(name)) throw new TypeError(`cookie name "${name}" is not a token`);
  if (!COOKIE_VALUE.test(value)) throw new TypeError(`cookie ${name}: value has characters outside cookie-octet`);
  const parts = [`${name}=${value}`];
  if (options.maxAgeSeconds !== undefined) {
    const seconds = Math.max(0, Math.floor(options.maxAgeSeconds));
    parts.push(`Max-Age=${seconds}`);
    parts.push(`Expires=${new Date(Date.now() + seconds * 1000).toUTCString()}`);
  }
  const path = options.path ?? '/';
  if (!PATH_VALUE.test(path)) throw new TypeError(`cookie ${name}: bad path`);
  parts.push(`Path=${path}`);
  if (options.httpOnly !== false) parts.push('HttpOnly');
  if (options.secure) parts.push('Secure');
  parts.push(`SameSite=${options.sameSite ?? 'Lax'}`);
  return parts.join('; ');
}
