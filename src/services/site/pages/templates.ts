import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assetPath, prepareFile, type StaticFile, type StaticFiles } from '../../../http/static-files.js';
import type { Catalogue } from './catalogue.js';
import { inlineIcon } from './icons.js';
import { limitValues, type PageRules } from '../store/page-rules.js';

// Pages are rendered once per language at start-up, from a layout and a fragment
// per page (static/site/pages/*.html): `{{key}}` is a catalogue string (escaped),
// `{{@app/x.js}}` the hashed path of an asset, `{{$name}}` one of the values below,
// `{{#bell}}` a Tabler icon inlined (icons.ts), `{{$limit.name}}` a field limit of
// the server's rules (rules.ts). A key, asset or icon that does not
// exist stops start-up.

export interface PageDefinition {
  /** The fragment static/site/pages/<name>.html and the script app/<name>.js. */
  name: string;
  /** Catalogue key of the document title. */
  title: string;
}

export interface RenderInput {
  page: PageDefinition;
  language: string;
  catalogue: Catalogue;
  assets: StaticFiles;
  /** `provider` when an identity provider is configured, else `local`. */
  login: 'provider' | 'local';
  /** The server's plugin rules for the pages' scripts (a JSON data block), and as `limit.*` values. */
  rules: PageRules;
}

const PLACEHOLDER = /\{\{([@$#]?)([A-Za-z0-9_.\-/]+)\}\}/g;

export function renderPage(templates: string, input: RenderInput): StaticFile {
  const layout = readFileSync(join(templates, 'layout.html'), 'utf8');
  const main = readFileSync(join(templates, `${input.page.name}.html`), 'utf8');
  const values: Record<string, string> = {
    lang: input.language,
    page: input.page.name,
    login: input.login,
    script: assetPath(input.assets, '/static/', `app/${input.page.name}.js`),
    title: escapeHtml(lookup(input.catalogue, input.page.title)),
    // A data block, never run (so the CSP does not apply); `<` escaped so no
    // string can close the element.
    strings: JSON.stringify(input.catalogue).replace(/</g, '\\u003c'),
    rules: JSON.stringify(input.rules).replace(/</g, '\\u003c'),
    main: fill(main, input, limitValues(input.rules)),
  };
  const html = fill(layout, input, values);
  return prepareFile('page.html', Buffer.from(html), 'no-cache');
}

function fill(template: string, input: RenderInput, values: Record<string, string>): string {
  return template.replace(PLACEHOLDER, (_, kind: string, name: string) => {
    if (kind === '@') return assetPath(input.assets, '/static/', name);
    if (kind === '#') return inlineIcon(name);
    if (kind === '$') {
      const value = values[name];
      if (value === undefined) throw new Error(`page template: unknown value {{$${name}}}`);
      return value;
    }
    return escapeHtml(lookup(input.catalogue, name));
  });
}

function lookup(catalogue: Catalogue, key: string): string {
  const text = catalogue[key];
  if (text === undefined) throw new Error(`page template: no catalogue string "${key}"`);
  return text;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
