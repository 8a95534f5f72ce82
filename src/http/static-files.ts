import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { compressBest, preferredCoding, type Coding } from './content-encoding.js';
import type { Context, Handler } from './context.js';
import { HttpError } from './errors.js';
import { contentTypeFor } from './mime.js';
import { HTML_CSP } from './security-headers.js';
import { sendBody } from './respond.js';
import { answeredNotModified } from './prepared-answer.js';
import { strongEtag } from './etag.js';

// The static folder is small and ships with the release: it is read into memory
// once at start-up, compressed there, and every script and stylesheet is also
// served under a name carrying a hash of its content (`app/store.3fa1c2d9e0.js`),
// which browsers may keep for a year. A request can only ever name a file that is
// in the map, so no path a client sends (.., %2e%2e, backslashes, NUL) can reach
// the disk.

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
  /** Serve scripts and stylesheets without comment lines and indentation (compactSource). */
  compact?: boolean;
}

// The same folder is read once per process, however many services a test starts.
const loaded = new Map<string, StaticFiles>();

export function loadStaticFolder(root: string, options: StaticOptions = {}): StaticFiles {
  const key = [root, String(options.skip ?? ''), options.compact === true].join('\u0000');
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
      else if (entry.isFile() && statSync(full).size <= MAX_STATIC_FILE_BYTES) raw.set(name, readFileSync(full));
    }
  };
  // A service without assets of its own simply serves none.
  if (existsSync(root)) walk(root);
  const files = buildFiles(raw, options.compact === true);
  loaded.set(key, files);
  return files;
}

/**
 * Scripts import each other by relative path (`./lib.js`); those imports are
 * rewritten to the hashed names, so one changed module changes the hash of every
 * module that imports it, and a page always gets a consistent set.
 */
function buildFiles(raw: Map<string, Buffer>, compact: boolean): StaticFiles {
  const finalBodies = new Map<string, Buffer>();
  const hashes = new Map<string, string>();
  const visiting = new Set<string>();
  const finalBody = (name: string): Buffer => {
    const done = finalBodies.get(name);
    if (done) return done;
    let body = raw.get(name)!;
    if (compact && /\.(js|css)$/.test(name)) body = Buffer.from(compactSource(body.toString('utf8'), name.endsWith('.css') ? 'css' : 'js'));
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

/**
 * With `compact`, scripts and stylesheets are served without their comment lines
 * (whole lines that are `// ...` or inside a block comment that starts a line),
 * blank lines and indentation: the comments and layout are for whoever reads the
 * source, browsers need none of them. Only whole lines and leading white space
 * go, so a string or a comment after code is never cut; the sources must hold no
 * string spanning lines (the site's do not: template literals are one line).
 *
 * A line break after `;`, `{` or `,` goes too: no statement can end there, so
 * automatic semicolon insertion never depended on it (a line holding `//` keeps
 * its break, since the comment may run to its end). Stylesheets also lose it
 * after `}`, the space before a rule's `{` and the space after a declaration's
 * colon (a line `name: value;`, never a selector, which ends in `{` or `,`).
 *
 * Within a line, a space beside punctuation that can never join the token next to
 * it goes as well (`a = b(c, d) {` → `a=b(c,d){`; in stylesheets only beside
 * `{ } ; , >`, since `a :hover` and `and (` mean something else there), and in
 * scripts beside `+ - * %` unless both sides are signs (`a - -b` keeps its space);
 * and in scripts an arrow function's lone parameter loses its parentheses.
 * The line is read left to right: a quoted string is copied whole, and so are a
 * template literal and a regular expression where nothing else can start with `/`
 * (literalEnd); from any other `/` (a division, a comment, a regular expression
 * after a word) or a template literal it cannot read, the rest of the line is
 * copied as it is. In a stylesheet a `/` is a separator (`16px/1.5`) unless it
 * opens a comment. In scripts a break also
 * goes before a line starting with `}`, `)` or `]` (no statement starts there, so
 * no semicolon was ever inserted before one that a join could lose) and after one
 * ending in `(`, `[`, `=>`, `&&` or `||` (no statement can end there).
 */
export function compactSource(text: string, kind: 'js' | 'css' = 'js'): string {
  const kept: string[] = [];
  let inBlock = false;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (inBlock) {
      if (trimmed.includes('*/')) {
        inBlock = false;
        if (!trimmed.endsWith('*/')) kept.push(trimmed.slice(trimmed.indexOf('*/') + 2));
      }
      continue;
    }
    if (trimmed === '' || trimmed.startsWith('//')) continue;
    if (trimmed.startsWith('/*')) {
      const end = trimmed.indexOf('*/', 2);
      if (end === -1) inBlock = true;
      else if (end + 2 < trimmed.length) kept.push(trimmed.slice(end + 2));
      continue;
    }
    kept.push(tightSpaces(kind === 'css' ? tightCssLine(trimmed) : trimmed, kind));
  }
  const joinAfter = kind === 'css' ? /[;{},]$/ : /([;{,([]|=>|&&|\|\|)$/;
  let out = '';
  for (let i = 0; i < kept.length; i++) {
    const line = kept[i]!;
    // A rule's last declaration needs no semicolon.
    out += kind === 'css' && line.endsWith(';') && kept[i + 1]?.startsWith('}') ? line.slice(0, -1) : line;
    if (i === kept.length - 1 || line.includes('//')) out += i < kept.length - 1 ? '\n' : '';
    else if (!joinAfter.test(line) && !(kind === 'js' && /^[}\])]/.test(kept[i + 1]!))) out += '\n';
  }
  return out;
}

/** Punctuation no space is needed beside: none of it forms a longer token with `+`, `-`, `.`, `/`, a word or a quote. */
const JS_TIGHT = new Set('{}()[],;:=<>?!&|');
const CSS_TIGHT = new Set('{};,>');
const ARITHMETIC = new Set('+-*%');
const SIGNS = new Set('+-');

/**
 * A space beside `+ - * %` may go unless both its neighbours are signs: `a - -b`
 * would be `a--b` and `a + +b` `a++b` (`a + -b` keeps its space too: the rule stays
 * simple). A `/` is never a neighbour here: a regular expression is copied whole,
 * and any other `/` ends the line's compaction.
 */
function arithmeticSpace(before: string, after: string): boolean {
  if (!ARITHMETIC.has(before) && !ARITHMETIC.has(after)) return false;
  return !(SIGNS.has(before) && SIGNS.has(after));
}

/**
 * `line` without the spaces beside its kind's tight characters, outside strings, and
 * only up to its first `/` or backtick. In stylesheets also the space after a
 * declaration's colon (after `{` or `;`: a selector never follows a `;`, and one
 * after a `{` has no space after a colon) and a `;` before a `}`.
 */
function tightSpaces(line: string, kind: 'js' | 'css'): string {
  const tight = kind === 'css' ? CSS_TIGHT : JS_TIGHT;
  let out = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    // In a stylesheet a `/` is only a separator (`16px/1.5`), unless it opens a comment.
    if (kind === 'css' && c === '/' && line[i + 1] !== '*') {
      out += c;
      continue;
    }
    if (c === '/' || c === '`') {
      const end = kind === 'js' ? literalEnd(line, i, out) : -1;
      if (end === -1) return out + line.slice(i);
      out += line.slice(i, end);
      i = end - 1;
      continue;
    }
    if (c === "'" || c === '"') {
      let end = i + 1;
      while (end < line.length && line[end] !== c) end += line[end] === '\\' ? 2 : 1;
      if (end >= line.length) return out + line.slice(i);
      out += line.slice(i, end + 1);
      i = end;
      continue;
    }
    if (kind === 'js' && c === ')' && /^ ?=>/.test(line.slice(i + 1))) {
      // `(x) =>` is `x =>`: a lone parameter needs no parentheses (not after a word: `async (x)` stays).
      const lone = /(?:^|[^\w$.])\(([A-Za-z_$][\w$]*)$/.exec(out);
      if (lone) {
        out = out.slice(0, out.length - lone[1]!.length - 1) + lone[1];
        continue;
      }
    }
    if (c === ' ' && (tight.has(out[out.length - 1] ?? '') || tight.has(line[i + 1] ?? '') || line[i + 1] === ' ')) continue;
    if (kind === 'js' && c === ' ' && arithmeticSpace(out[out.length - 1] ?? '', line[i + 1] ?? '')) continue;
    if (kind === 'css' && c === ' ' && /[;{](--[\w-]+|[a-z-]+):$/.test(out)) continue;
    if (kind === 'css' && c === '}' && out.endsWith(';')) out = out.slice(0, -1);
    out += c;
  }
  return out;
}

/** Where a `/` can only start a regular expression: no operand ends in one of these. */
const BEFORE_REGEX = new Set('(,=:[!&|?{};');

/**
 * In a script line, the end (exclusive) of the literal that starts at `start`, to
 * be copied whole: a template literal with no quote, brace or backtick in its
 * `${}`, or a regular expression where nothing else can start with `/` (after
 * `( , = : [ ! & | ? { ;` or at the start of the line); -1 for anything else (a comment, a division, a
 * regular expression after a word), whose line is then copied as it is from here.
 */
function literalEnd(line: string, start: number, before: string): number {
  if (line[start] === '`') {
    for (let i = start + 1; i < line.length; i++) {
      if (line[i] === '\\') i++;
      else if (line[i] === '`') return i + 1;
      else if (line.startsWith('${', i)) {
        const close = line.indexOf('}', i);
        if (close === -1 || /[`'"{]/.test(line.slice(i + 2, close))) return -1;
        i = close;
      }
    }
    return -1;
  }
  if (line[start + 1] === '/' || line[start + 1] === '*' || !BEFORE_REGEX.has(before.trimEnd().at(-1) ?? ';')) return -1;
  let inClass = false;
  for (let i = start + 1; i < line.length; i++) {
    const c = line[i];
    if (c === '\\') i++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) {
      let end = i + 1;
      while (/[a-z]/.test(line[end] ?? '')) end++;
      return end;
    }
  }
  return -1;
}

const CSS_DECLARATION = /^(--[\w-]+|[a-z-]+):\s+(?=\S)/;

function tightCssLine(line: string): string {
  if (line.endsWith('{')) return line.replace(/\s+\{$/, '{');
  if (line.endsWith(',')) return line;
  return line.replace(CSS_DECLARATION, '$1:');
}

/** `from '../http/x.js'`, `import '../http/x.js'`, `import('../http/x.js')`: relative specifiers only. */
const IMPORT_SPECIFIER = /(\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.{1,2}\/[^'"\n]+?\.js)\2/g;
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
export function sendStaticFile(ctx: Context<any>, file: StaticFile, extra: Record<string, string> = {}, status = 200): void {
  const compressible = file.encoded.br !== undefined || file.encoded.gzip !== undefined;
  const coding = compressible ? preferredCoding(ctx.req.headers['accept-encoding']) : undefined;
  const variant = coding ? file.encoded[coding] : undefined;
  const etag = variant?.etag ?? file.etag;
  const headers: Record<string, string> = { ETag: etag, 'Cache-Control': file.cacheControl, ...extra };
  if (compressible) headers.Vary = headers.Vary ? `${headers.Vary}, Accept-Encoding` : 'Accept-Encoding';
  // A page may bring its own (the site's names its image host).
  if (file.contentType.startsWith('text/html')) headers['Content-Security-Policy'] ??= HTML_CSP;
  if (status === 200 && answeredNotModified(ctx, etag, headers)) return;
  if (variant) headers['Content-Encoding'] = coding!;
  sendBody(ctx, status, variant?.body ?? file.body, file.contentType, headers);
}

function isPlainRelativePath(name: string): boolean {
  if (name.length > 512 || name.includes('\0') || name.includes('\\')) return false;
  return name.split('/').every((segment, i, all) => segment !== '..' && segment !== '.' && (segment !== '' || i === all.length - 1));
}
