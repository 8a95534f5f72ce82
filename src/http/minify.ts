import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import type { TransformOptions } from 'esbuild';
import { projectRoot } from '../lib/project-root.js';

// The site's scripts and stylesheets are served as esbuild minifies them: a third
// fewer brotli bytes than the sources (docs/benchmarks.md, "Page budget"), made by
// a well-kept tool rather than rules of our own. esbuild is a devDependency pinned
// to one exact version, so the same source always gives the same bytes, on every
// process and host (and so the same ETags and hashed names).
//
// The build (`npm run build`, which `npm ci` runs through `prepare`) writes each
// minified copy under dist/minified/, named by the SHA-256 of the source it was
// made from: a copy can never be stale. A source changed since the build has no
// copy and is minified when the folder is loaded, by the same esbuild with the
// same options; where esbuild is not installed, that stops the start with a line
// that says to build.

/** Where the build writes the minified copies. */
export const MINIFIED_DIR = join(projectRoot(), 'dist', 'minified');

/** What is minified: scripts (ES modules) and stylesheets. */
export const MINIFIED_FILE = /\.(js|css)$/;

/**
 * No syntax newer than the sources' is introduced (they are ES2022, as is
 * tsconfig's target); non-ASCII text stays UTF-8 rather than `\u` escapes, which
 * would cost the Chinese and symbol strings bytes.
 */
const OPTIONS: TransformOptions = { minify: true, target: 'es2022', charset: 'utf8', legalComments: 'none' };

type Esbuild = typeof import('esbuild');
let esbuild: Esbuild | undefined;

/** `source` (the file `name`) minified by esbuild; a syntax error throws, naming the file. */
export function minify(name: string, source: Buffer): Buffer {
  esbuild ??= loadEsbuild(name);
  const script = name.endsWith('.js');
  const options: TransformOptions = { ...OPTIONS, loader: script ? 'js' : 'css', sourcefile: name };
  if (script) options.format = 'esm';
  return Buffer.from(esbuild.transformSync(source.toString('utf8'), options).code);
}

/** The minified copy of `source`: the build's, or made now when the build has none for these bytes. */
export function minified(name: string, source: Buffer, dir = MINIFIED_DIR): Buffer {
  const copy = join(dir, copyName(name, source));
  return existsSync(copy) ? readFileSync(copy) : minify(name, source);
}

/**
 * Writes the minified copy of every script and stylesheet under `staticRoot` into
 * `dir`, replacing what was there as a whole (a half-written folder is never
 * read: the new one is renamed into place). Returns how many files and their bytes.
 */
export function writeMinifiedCopies(staticRoot: string, dir = MINIFIED_DIR): { files: number; sourceBytes: number; minifiedBytes: number } {
  const next = `${dir}.${process.pid}.tmp`;
  rmSync(next, { recursive: true, force: true });
  mkdirSync(next, { recursive: true });
  const made = { files: 0, sourceBytes: 0, minifiedBytes: 0 };
  for (const file of sourcesUnder(staticRoot)) {
    const source = readFileSync(file);
    const body = minify(file, source);
    writeFileSync(join(next, copyName(file, source)), body);
    made.files++;
    made.sourceBytes += source.length;
    made.minifiedBytes += body.length;
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(next, dir);
  return made;
}

function sourcesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourcesUnder(full));
    else if (entry.isFile() && MINIFIED_FILE.test(entry.name)) found.push(full);
  }
  return found;
}

function copyName(name: string, source: Buffer): string {
  return createHash('sha256').update(source).digest('hex') + extname(name);
}

function loadEsbuild(name: string): Esbuild {
  try {
    return createRequire(import.meta.url)('esbuild') as Esbuild;
  } catch {
    throw new Error(`${name} changed since the build and esbuild (a devDependency) is not installed to minify it: run npm ci && npm run build`);
  }
}
