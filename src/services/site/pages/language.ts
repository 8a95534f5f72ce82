import type { IncomingMessage } from 'node:http';
import { getCookie } from '../../../http/cookies.js';

// The pages speak the two languages of the launcher's users. The switch in the
// header remembers the choice in a cookie (set by the page's script, read here);
// without one, the browser's Accept-Language decides; anything else is English.

export const LANGUAGES = ['en', 'zh-CN'] as const;
export type Language = (typeof LANGUAGES)[number];
export const FALLBACK_LANGUAGE: Language = 'en';
/** Written by static/site/app/header.js. */
export const LANGUAGE_COOKIE = 'lang';

export function pickLanguage(req: IncomingMessage): Language {
  const chosen = getCookie(req, LANGUAGE_COOKIE);
  if (chosen === 'en' || chosen === 'zh-CN') return chosen;
  return fromAcceptLanguage(req.headers['accept-language']);
}

/** RFC 9110 12.5.4: the highest q-value among the languages we have wins; ties go to the first listed. */
export function fromAcceptLanguage(header: string | undefined): Language {
  if (!header) return FALLBACK_LANGUAGE;
  let best: Language = FALLBACK_LANGUAGE;
  let bestQ = 0;
  for (const item of header.slice(0, 1024).split(',')) {
    const [range = '', ...params] = item.split(';');
    const tag = range.trim().toLowerCase();
    const qParam = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!(q > bestQ)) continue;
    const language = tag === 'zh' || tag.startsWith('zh-') ? 'zh-CN' : tag === 'en' || tag.startsWith('en-') ? 'en' : undefined;
    if (language) {
      best = language;
      bestQ = q;
    }
  }
  return best;
}
