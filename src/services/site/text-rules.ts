import { validationFailed } from '../../http/errors.js';

// The building blocks of the plugin field rules. Lengths count characters (code
// points), as docs/api.md says, never UTF-16 units or bytes.

/** Longest accepted link (download, homepage, icon, screenshots). */
export const MAX_LINK_LENGTH = 2048;

export function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/**
 * A string of `min`..`max` characters. NUL is refused: PostgreSQL text cannot hold
 * it, and no field has a use for it.
 */
export function text(field: string, value: unknown, min: number, max: number): string {
  if (typeof value !== 'string') throw validationFailed(field, `${field} must be a string`);
  if (value.includes('\u0000')) throw validationFailed(field, `${field} must not contain NUL characters`);
  // More than 2 × max UTF-16 units is more than max characters whatever they are.
  const length = value.length > max * 2 ? max + 1 : codePointLength(value);
  if (length < min || length > max) {
    throw validationFailed(field, min > 0 ? `${field} must be ${min} to ${max} characters` : `${field} must be at most ${max} characters`);
  }
  return value;
}

/**
 * A multipart text part as it was typed: browsers send each line break of a form's
 * text as CRLF (HTML's form encoding), where a textarea's value and a JSON body
 * have LF. Kept as LF, the same text sent either way is the same text, and an edit
 * page that shows it back changes nothing.
 */
export function typedText(value: string): string {
  return value.replace(/\r\n/g, '\n');
}

/** An https: URL without user or password, normalized as the WHATWG parser writes it. */
export function httpsUrl(field: string, value: unknown): URL {
  const raw = text(field, value, 1, MAX_LINK_LENGTH).trim();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validationFailed(field, `${field} must be an https:// URL`);
  }
  if (url.protocol !== 'https:' || url.hostname === '') throw validationFailed(field, `${field} must be an https:// URL`);
  if (url.username !== '' || url.password !== '') throw validationFailed(field, `${field} must not contain a user name or password`);
  if (codePointLength(url.href) > MAX_LINK_LENGTH) throw validationFailed(field, `${field} is too long`);
  return url;
}

// An in-site path: one leading slash (`//host` and `/\host` are other hosts to a
// browser), no white space or control characters.
const IN_SITE_PATH = /^\/(?:[^/\\\s\u0000-\u001f\u007f-\u009f\u180e][^\s\u0000-\u001f\u007f-\u009f\u180e]*)?$/;

/** An https: URL or an absolute in-site path (icons, screenshots). */
export function link(field: string, value: unknown): string {
  const raw = text(field, value, 1, MAX_LINK_LENGTH).trim();
  if (raw.startsWith('/')) {
    if (!IN_SITE_PATH.test(raw)) throw validationFailed(field, `${field} must be an https:// URL or a path starting with one /`);
    return raw;
  }
  if (!/^https:/i.test(raw)) throw validationFailed(field, `${field} must be an https:// URL or a path starting with one /`);
  return storedHref(raw, httpsUrl(field, raw));
}

// Plain: printable ASCII with the scheme in lower case and no backslash (which the
// parser would turn into a slash). Such a link is kept exactly as the author wrote
// it, so what they tested is what launchers and pages get; anything else is stored
// in the parser's form (host lower-cased, spaces escaped...).
const PLAIN_HTTPS_LINK = /^https:\/\/[!-[\]-~]+$/;

/** `raw` (trimmed, already checked by httpsUrl) when it is plain, else the parsed URL's href. */
export function storedHref(raw: string, url: URL, shape: RegExp = PLAIN_HTTPS_LINK): string {
  return PLAIN_HTTPS_LINK.test(raw) && shape.test(raw) ? raw : url.href;
}

// Tags and permissions may come as one string; entries are separated by commas,
// Chinese commas (U+FF0C) or white space, in a string or inside array items alike.
// U+0085 and U+180E are not \s in JavaScript but are white space to some C libraries,
// hence to the database's [:space:] check under some locales.
const SEPARATORS = /[,\uFF0C\s\u0085\u180E]+/u;

/**
 * A list of words: split, trimmed, empty ones dropped, duplicates removed (the
 * first spelling kept; `foldCase` compares case-insensitively), then bounded.
 */
export function wordList(field: string, value: unknown, limits: { maxItems: number; maxLength: number; foldCase: boolean }): string[] {
  if (value === null || value === undefined) return [];
  let parts: string[];
  if (typeof value === 'string') parts = [value];
  else if (Array.isArray(value)) {
    if (value.length > limits.maxItems * 4) throw validationFailed(field, `${field} may have at most ${limits.maxItems} entries`);
    parts = value.map((item) => {
      if (typeof item !== 'string') throw validationFailed(field, `every entry of ${field} must be a string`);
      return item;
    });
  } else throw validationFailed(field, `${field} must be a list of strings or one string`);

  const words: string[] = [];
  const seen = new Set<string>();
  for (const part of parts) {
    if (part.length > 100_000) throw validationFailed(field, `${field} is too long`);
    for (const word of part.split(SEPARATORS)) {
      if (word === '') continue;
      const key = limits.foldCase ? word.toLowerCase() : word;
      if (seen.has(key)) continue;
      seen.add(key);
      words.push(text(field, word, 1, limits.maxLength));
    }
  }
  if (words.length > limits.maxItems) throw validationFailed(field, `${field} may have at most ${limits.maxItems} entries`);
  return words;
}
