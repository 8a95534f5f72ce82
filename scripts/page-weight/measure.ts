import { join, posix } from 'node:path';
import { IMPORT_SPECIFIER, loadStaticFolder, type StaticFile } from '../../src/http/static-files.js';
import { projectRoot } from '../../src/lib/project-root.js';
import { renderSitePages, SITE_STATIC_OPTIONS } from '../../src/services/site/pages/feature.js';

// What each of the site's pages makes a browser download besides itself: the
// scripts and stylesheets its HTML names (stylesheet and modulepreload links,
// script sources), and every script those import, as the site serves them. A
// file costs its brotli copy (every browser we serve takes br; a file too small
// to have one costs its own bytes). The pages are rendered by the site's own
// code, so a page, script or import added there is counted without a list here.

/** Where the site serves static/site (src/services/site/app.ts). */
const STATIC_PREFIX = '/static/';

export interface FileWeight {
  /** The served name (hashed). */
  name: string;
  bytes: number;
  brotli: number;
}

export interface PageWeight {
  page: string;
  files: FileWeight[];
  /** The files' brotli bytes together. */
  brotli: number;
  /** The page's own HTML (the largest of its languages), not part of the budget. */
  html: { bytes: number; brotli: number };
}

export interface SiteWeight {
  pages: PageWeight[];
  /** Every file any page loads, each once: what a visitor of every page downloads. */
  all: { files: FileWeight[]; brotli: number };
}

export function measurePageWeights(): SiteWeight {
  const files = loadStaticFolder(join(projectRoot(), 'static', 'site'), SITE_STATIC_OPTIONS);
  const everyFile = new Map<string, FileWeight>();
  const pages: PageWeight[] = [];
  for (const [page, byLanguage] of renderSitePages('local')) {
    const names = new Set<string>();
    let html = { bytes: 0, brotli: 0 };
    for (const rendered of Object.values(byLanguage)) {
      for (const name of loadedFiles(page, rendered.body.toString('utf8'), files)) names.add(name);
      if (rendered.body.length > html.bytes) html = { bytes: rendered.body.length, brotli: brotliBytes(rendered) };
    }
    const weights = [...names].sort().map((name) => {
      const file = files.get(name)!;
      const weight = { name, bytes: file.body.length, brotli: brotliBytes(file) };
      everyFile.set(name, weight);
      return weight;
    });
    pages.push({ page, files: weights, brotli: sum(weights), html });
  }
  const all = [...everyFile.values()].sort((a, b) => a.name.localeCompare(b.name));
  return { pages, all: { files: all, brotli: sum(all) } };
}

const brotliBytes = (file: StaticFile) => (file.encoded.br ?? file).body.length;
const sum = (weights: FileWeight[]) => weights.reduce((total, weight) => total + weight.brotli, 0);

const TAG = /<(link|script)\b([^>]*)>/gi;

function attribute(attributes: string, name: string): string | undefined {
  return new RegExp(`\\b${name}\\s*=\\s*"([^"]*)"`, 'i').exec(attributes)?.[1];
}

/** The served names of the scripts and stylesheets `html` loads, with every script they import. */
export function loadedFiles(page: string, html: string, files: Map<string, StaticFile>): Set<string> {
  const loaded = new Set<string>();
  const load = (name: string, from: string) => {
    if (loaded.has(name)) return;
    const file = files.get(name);
    if (!file) throw new Error(`${page}: ${from} loads ${name}, which the site does not serve`);
    loaded.add(name);
    if (!name.endsWith('.js')) return;
    for (const [, , , spec] of file.body.toString('utf8').matchAll(IMPORT_SPECIFIER)) {
      load(posix.normalize(posix.join(posix.dirname(name), spec!)), name);
    }
  };
  for (const [, tag, attributes] of html.matchAll(TAG)) {
    const rel = (attribute(attributes!, 'rel') ?? '').toLowerCase().split(/\s+/);
    const url = tag!.toLowerCase() === 'script' ? attribute(attributes!, 'src') : rel.includes('stylesheet') || rel.includes('modulepreload') ? attribute(attributes!, 'href') : undefined;
    if (url === undefined) continue;
    if (!url.startsWith(STATIC_PREFIX)) throw new Error(`${page}: loads ${url}, not one of the site's static files`);
    load(url.slice(STATIC_PREFIX.length), 'its HTML');
  }
  return loaded;
}
