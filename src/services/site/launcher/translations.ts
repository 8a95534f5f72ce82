// Per-language texts of LAUNCHER_CONFIG, for the landing page (and any launcher that
// asks for them with /api/info?lang=). The file's seven keys stay the default, as
// the launchers read them; an optional `translations` object, keyed by language tag,
// holds for each language the texts to use instead:
//
//   "translations": { "zh-CN": { "description": "…", "newVersionDescription": "…",
//     "BLTips": ["…"], "activity": {"title": "…", "description": "…", "time": "…"},
//     "beta": {"description": "…"} } }
//
// Only texts are translated: links, versions and hashes are the same in every
// language. `activity` and `beta` are merged key by key over the default, so a
// translation names only what it changes.

import { isObject, own } from '../../../lib/json-object.js';

/** The info keys a translation may replace whole. */
const TEXT_KEYS = ['description', 'newVersionDescription', 'BLTips'] as const;
/** The info keys whose text fields a translation may replace one by one. */
const MERGED_KEYS: Record<string, readonly string[]> = {
  activity: ['title', 'description', 'time', 'status'],
  beta: ['versionName', 'description'],
};
/** A BCP 47 tag as browsers send them: zh-CN, en, zh-Hant-TW. */
export const LANGUAGE_TAG = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8}){0,3}$/;
/** More would be a mistake in the file, not a site in 50 languages. */
export const MAX_TRANSLATIONS = 32;

/** The info answer in each language the file translates, keyed by lower-case tag. */
export function readTranslations(value: unknown, info: Record<string, unknown>, warnings: string[]): Map<string, Record<string, unknown>> {
  const translated = new Map<string, Record<string, unknown>>();
  if (value === undefined || value === null) return translated;
  if (!isObject(value)) {
    warnings.push('translations is not an object: ignored');
    return translated;
  }
  for (const [tag, texts] of Object.entries(value)) {
    if (!LANGUAGE_TAG.test(tag) || !isObject(texts)) {
      warnings.push(`translations.${tag}: not a language tag with an object of texts: ignored`);
      continue;
    }
    if (translated.size === MAX_TRANSLATIONS) {
      warnings.push(`translations: more than ${MAX_TRANSLATIONS} languages; the rest are ignored`);
      break;
    }
    translated.set(tag.toLowerCase(), translate(info, texts, `translations.${tag}`, warnings));
  }
  return translated;
}

function translate(info: Record<string, unknown>, texts: Record<string, unknown>, at: string, warnings: string[]): Record<string, unknown> {
  const result = { ...info };
  for (const key of TEXT_KEYS) {
    const text = own(texts, key);
    if (text === undefined) continue;
    const fits = key === 'BLTips' ? Array.isArray(text) && text.every((tip) => typeof tip === 'string') : typeof text === 'string';
    if (fits) result[key] = text;
    else warnings.push(`${at}.${key} is not ${key === 'BLTips' ? 'a list of strings' : 'a string'}: the default is served`);
  }
  for (const [key, fields] of Object.entries(MERGED_KEYS)) {
    const part = own(texts, key);
    if (part === undefined) continue;
    const base = info[key];
    if (!isObject(part) || !isObject(base)) {
      warnings.push(`${at}.${key} is not an object, or the file has no ${key} to translate: the default is served`);
      continue;
    }
    const merged: Record<string, unknown> = { ...base };
    for (const field of fields) {
      const text = own(part, field);
      if (typeof text === 'string') merged[field] = text;
      else if (text !== undefined) warnings.push(`${at}.${key}.${field} is not a string: the default is served`);
    }
    result[key] = merged;
  }
  return result;
}

/**
 * The translation for a requested tag: the tag itself, else its language alone
 * (zh-TW finds zh), else one of the same language (zh finds zh-CN); undefined for
 * the default texts.
 */
export function pickTranslation<T>(translations: ReadonlyMap<string, T>, tag: string): T | undefined {
  const wanted = tag.toLowerCase();
  const language = wanted.split('-')[0]!;
  if (translations.has(wanted)) return translations.get(wanted);
  if (translations.has(language)) return translations.get(language);
  for (const [key, value] of translations) if (key.split('-')[0] === language) return value;
  return undefined;
}
