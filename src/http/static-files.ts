import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { answeredNotModified, compressBest, preferredCoding, sendBody, strongEtag, type Coding, type HeaderList } from './answer/index.js';
import type { Context, Handler } from './context.js';
import { HttpError } from './errors.js';
import { minified, MINIFIED_FILE } from './minify.js';
import { contentTypeFor } from './mime.js';
import { HTML_CSP } from './security-headers.js';

// The static folder is small and ships with the release: it is read into memory
// once at start-up, compressed there, and every script and stylesheet is also
// served under a name carrying a hash of its content (`app/store.3fa1c2d9e0.js`),
// which browsers may keep for a year. A request can only ever name a file that is
// in the map, so no path a client sends (.., %2e%2e, backslashes, NUL) can reach
// the disk. Files are served as written, or, for a folder loaded with `minify`,
// its scripts and stylesheets as esbuild minifies them (./minify.ts); only
// scripts' imports are renamed. Every process serves the same bytes under the same
// ETags; what browsers download of the site's pages is the brotli copy, and that
// is what its budget counts (test/site/pages/page-budget.test.ts).

export const MAX_STATIC_FILE_BYTES = 4 * 1024 * 1024;
/** Smaller files gain too little from compression to be worth a second copy. */
export const COMPRESS_MIN_BYTES = 512;
/** Hex digits of the content hash in a hashed name. */
const HASH_LENGTH = 10;

const REVALIDATE = 'public, max-age=300, must-revalidate';
const IMMUTABLE = 'public, max-age=31536000, immutable';

export interface StaticFile {
  body: Buffer;
  contentType: string;
  etag: string;
  /** Compressed copies, only where they are smaller. */
  encoded: Partial<Record<Coding, { body: Buffer; etag: string }>>;
  cacheControl: string;
  /** For scripts and stylesheets: the name that carries the content hash. */
  hashedName?: string;
}

export type StaticFiles = Map<string, StaticFile>;

export interface StaticOptions {
  /** Relative paths (with `/`) left out of the map, e.g. server-side templates. */
  skip?: (name: string) => boolean;
  /** Serve scripts and stylesheets minified (the build's copies, ./minify.ts). */
  minify?: boolean;
}

// The same folder is read once per process, however many services a test starts.
const loaded = new Map<string, StaticFiles>();

export function loadStaticFolder(root: string, options: StaticOptions = {}): StaticFiles {
  const key = [root, String(options.skip ?? ''), options.minify === true].join('\u0000');
  const known = loaded.get(key);
  if (known) return known;
  const raw = new Map<string, Buffer>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const full = join(dir, entry.name);
      const name = relative(root, full).split(sep).join('/');
      if (options.skip?.(name)) continue;
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && statSync(full).size <= MAX_STATIC_FILE_BYTES) {
        const body = readFileSync(full);
        raw.set(name, options.minify && MINIFIED_FILE.test(name) ? minified(full, body) : body);
      }
    }
  };
  // A service without assets of its own simply serves none.
  if (existsSync(root)) walk(root);
  const files = buildFiles(raw);
  loaded.set(key, files);
  return files;
}

/**
 * Scripts import each other by relative path (`./lib.js`); those imports are
 * rewritten to the hashed names, so one changed module changes the hash of every
 * module that imports it, and a page always gets a consistent set.
 */
function buildFiles(raw: Map<string, Buffer>): StaticFiles {
  const finalBodies = new Map<string, Buffer>();
  const hashes = new Map<string, string>();
  const visiting = new Set<string>();
  const finalBody = (name: string): Buffer => {
    const done = finalBodies.get(name);
    if (done) return done;
    let body = raw.get(name)!;
    if (name.endsWith('.js') && !visiting.has(name)) {
      visiting.add(name);
      const text = body.toString('utf8').replace(IMPORT_SPECIFIER, (whole, lead: string, quote: string, spec: string) => {
        const target = posix.normalize(posix.join(posix.dirname(name), spec));
        if (!raw.has(target) || visiting.has(target)) return whole;
        finalBody(target);
        return `${lead}${quote}${hashedPath(spec, hashes.get(target)!)}${quote}`;
      });
      visiting.delete(name);
      body = Buffer.from(text);
    }
    finalBodies.set(name, body);
    hashes.set(name, createHash('sha256').update(body).digest('hex').slice(0, HASH_LENGTH));
    return body;
  };

  const files: StaticFiles = new Map();
  for (const name of raw.keys()) {
    const file = prepareFile(name, finalBody(name), REVALIDATE);
    if (HASHED_EXTENSIONS.test(name)) {
      file.hashedName = hashedPath(name, hashes.get(name)!);
      files.set(file.hashedName, { ...file, cacheControl: IMMUTABLE });
    }
    files.set(name, file);
  }
  return files;
}

/** A body ready to serve: its type by `name`, its ETag, compressed copies where they help. */
export function prepareFile(name: string, body: Buffer, cacheControl: string): StaticFile {
  const contentType = contentTypeFor(name);
  const etag = strongEtag(body);
  const encoded: StaticFile['encoded'] = {};
  if (body.length >= COMPRESS_MIN_BYTES && isCompressible(contentType)) {
    for (const [coding, compressed] of Object.entries(compressBest(body)) as Array<[Coding, Buffer]>) {
      if (compressed.length < body.length) encoded[coding] = { body: compressed, etag: `${etag.slice(0, -1)}-${coding}"` };
    }
  }
  return { body, contentType, etag, encoded, cacheControl };
}

/** `from '../http/x.js'`, `import '../http/x.js'`, `import('../http/x.js')`: relative specifiers only. */
export const IMPORT_SPECIFIER = /(\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.{1,2}\/[^'"\n]+?\.js)\2/g;
const HASHED_EXTENSIONS = /\.(js|css)$/;

function hashedPath(name: string, hash: string): string {
  const dot = name.lastIndexOf('.');
  return `${name.slice(0, dot)}.${hash}${name.slice(dot)}`;
}

function isCompressible(contentType: string): boolean {
  return /^(text\/|application\/json|image\/svg\+xml)/.test(contentType) || contentType.includes('javascript');
}

/** The public path of an asset under `prefix`, by its hashed name when it has one. */
export function assetPath(files: StaticFiles, prefix: string, name: string): string {
  const file = files.get(name);
  if (!file) throw new Error(`static asset ${name} is missing`);
  return prefix + (file.hashedName ?? name);
}

/** Serves `files` for a route whose last segment is `*`, or a fixed file name. */
export function staticHandler(files: StaticFiles, fixedName?: string): Handler<any> {
  return (ctx) => {
    const name = fixedName ?? ctx.params['*'] ?? '';
    if (!isPlainRelativePath(name)) throw new HttpError(404, 'NOT_FOUND', 'Not found');
    const file = files.get(name) ?? files.get(name ? `${name}/index.html` : 'index.html');
    if (!file) throw new HttpError(404, 'NOT_FOUND', 'Not found');
    sendStaticFile(ctx, file);
  };
}

/**
 * The file, compressed when the client takes it, 304 when its ETag matches.
 * `extra` headers (a page's Vary, say) join ours; HTML gets HTML_CSP unless `extra` has a CSP.
 */
export function sendStaticFile(ctx: Context<any>, file: StaticFile, extra?: Record<string, string>, status = 200): void {
  const compressible = file.encoded.br !== undefined || file.encoded.gzip !== undefined;
  const coding = compressible ? preferredCoding(ctx.req.headers['accept-encoding']) : undefined;
  const variant = coding ? file.encoded[coding] : undefined;
  const etag = variant?.etag ?? file.etag;
  // Without extra headers (every script, stylesheet and icon page), the heads are made once per file and coding.
  const heads = extra === undefined ? preparedHeads(file, variant ? coding : undefined) : undefined;
  const headers = heads?.notModified ?? fileHeaders(file, etag, extra);
  if (status === 200 && answeredNotModified(ctx, etag, headers)) return;
  if (heads !== undefined) return sendBody(ctx, status, variant?.body ?? file.body, file.contentType, heads.whole);
  if (variant) (headers as Record<string, string>)['Content-Encoding'] = coding!;
  sendBody(ctx, status, variant?.body ?? file.body, file.contentType, headers);
}

/** A file's own headers (a 304's whole head): ETag, Cache-Control, `extra`, Vary, a page's CSP. */
function fileHeaders(file: StaticFile, etag: string, extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { ETag: etag, 'Cache-Control': file.cacheControl, ...extra };
  if (file.encoded.br !== undefined || file.encoded.gzip !== undefined) headers.Vary = headers.Vary ? `${headers.Vary}, Accept-Encoding` : 'Accept-Encoding';
  // A page may bring its own (the site's names its image host).
  if (file.contentType.startsWith('text/html')) headers['Content-Security-Policy'] ??= HTML_CSP;
  return headers;
}

/** A file's heads in one coding (or none): a 304's, and the 200's with its Content-Encoding. */
interface FileHeads {
  readonly notModified: HeaderList;
  readonly whole: HeaderList;
}
const heads = new WeakMap<StaticFile, Partial<Record<Coding | 'identity', FileHeads>>>();

function preparedHeads(file: StaticFile, coding: Coding | undefined): FileHeads {
  let known = heads.get(file);
  if (known === undefined) heads.set(file, (known = {}));
  return (known[coding ?? 'identity'] ??= makeHeads(file, coding));
}

function makeHeads(file: StaticFile, coding: Coding | undefined): FileHeads {
  const etag = coding === undefined ? file.etag : file.encoded[coding]!.etag;
  const notModified = Object.freeze(Object.entries(fileHeaders(file, etag)).flat());
  return { notModified, whole: coding === undefined ? notModified : Object.freeze([...notModified, 'Content-Encoding', coding]) };
}

function isPlainRelativePath(name: string): boolean {
  if (name.length > 512 || name.includes('\0') || name.includes('\\')) return false;
  return name.split('/').every((segment, i, all) => segment !== '..' && segment !== '.' && (segment !== '' || i === all.length - 1));
}
