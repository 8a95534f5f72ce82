import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LANGUAGES, type Language } from './language.js';

// Every string of the pages lives in one catalogue per language
// (static/site/i18n/<lang>.json): the server fills the HTML with it and hands it
// whole to the scripts. Checked at start-up: both catalogues must have exactly
// the same keys, every value a string, so no page ever shows a key.

export type Catalogue = Readonly<Record<string, string>>;

export function loadCatalogues(folder: string): Record<Language, Catalogue> {
  const catalogues = {} as Record<Language, Catalogue>;
  for (const language of LANGUAGES) {
    const file = join(folder, `${language}.json`);
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${file}: not a JSON object`);
    for (const [key, value] of Object.entries(parsed)) {
      if (typeof value !== 'string') throw new Error(`${file}: "${key}" is not a string`);
    }
    catalogues[language] = Object.freeze(parsed as Record<string, string>);
  }
  const [first, ...others] = LANGUAGES;
  for (const other of others) {
    const a = Object.keys(catalogues[first]);
    const b = new Set(Object.keys(catalogues[other]));
    const missing = [...a.filter((key) => !b.has(key)), ...[...b].filter((key) => !(key in catalogues[first]))];
    if (missing.length > 0) throw new Error(`i18n catalogues ${first} and ${other} differ in: ${missing.join(', ')}`);
  }
  return catalogues;
}
