// The pages' shared helpers: strings, the JSON API and its envelope, and building
// DOM from data. Everything a user wrote reaches the page through text nodes
// (textContent), never through HTML parsing; links from users must be https.

const strings = JSON.parse(document.getElementById('strings')?.textContent || '{}');
export const lang = document.documentElement.lang || 'en';

/** A catalogue string, `{name}` replaced by `vars.name`. */
export function t(key, vars) {
  // A `.one` variant, where the catalogue has one, for a count of 1 ("1 install").
  const one = vars && (String(vars.n) === '1' || String(vars.count) === '1') ? strings[key + '.one'] : undefined;
  const text = one ?? strings[key] ?? key;
  return vars ? text.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole)) : text;
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error || t('error.generic'));
    this.status = status;
    this.code = body?.code || (status ? 'HTTP_' + status : 'NETWORK');
    this.field = body?.field;
  }
}

/** fetch + envelope: the answer's fields on success, an ApiError otherwise. */
export async function api(path, { method = 'GET', body, signal } = {}) {
  const init = { method, signal, credentials: 'same-origin', headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    throw new ApiError(0, { error: t('error.network'), code: 'NETWORK' });
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    /* not JSON: reported below */
  }
  if (!res.ok || !data || data.success === false) throw new ApiError(res.status, data);
  return data;
}

/** What to tell a person about a failed call. */
export function errorText(error) {
  if (error?.code === 'NETWORK') return t('error.network');
  if (error?.status === 401) return t('error.login');
  if (error?.status === 429) return t('error.rate');
  if (error?.status >= 500) return t('error.server');
  return error?.message || t('error.generic');
}

/**
 * An element: `props` sets properties (`text` → textContent, `class`, `on*`
 * handlers, `dataset`; `role` and `aria-*` as attributes); children are nodes or strings
 * (strings become text nodes).
 */
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = value;
    else if (key === 'class') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key === 'role' || key.startsWith('aria-')) node.setAttribute(key, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node[key] = value;
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

export const $ = (id) => document.getElementById(id);

/** An https URL as a string, or null: users' links are never anything else. */
export function httpsUrl(value) {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Images may also be in-site paths (SPEC), resolved against this site. */
export function imageUrl(value) {
  if (typeof value !== 'string') return null;
  if (/^\/(?![/\\])/.test(value)) return value;
  return httpsUrl(value);
}

export const UGC_REL = 'noopener noreferrer nofollow ugc';

/** A user's https link opening in a new tab, or plain text when it is not one. */
export function userLink(href, text) {
  const url = httpsUrl(href);
  return url ? h('a', { href: url, text: text ?? url, target: '_blank', rel: UGC_REL }) : document.createTextNode(text ?? String(href ?? ''));
}

const LINK = /https:\/\/[^\s<>"'`]+/g;

/** A user's text: its line breaks kept (CSS), https links made clickable, nothing else. */
export function richText(text) {
  const fragment = document.createDocumentFragment();
  let last = 0;
  for (const match of String(text ?? '').matchAll(LINK)) {
    // Trailing punctuation belongs to the sentence, not the link.
    const href = match[0].replace(/[.,;:!?)\]]+$/, '');
    fragment.append(text.slice(last, match.index));
    fragment.append(userLink(href, href));
    last = match.index + href.length;
  }
  fragment.append(String(text ?? '').slice(last));
  return fragment;
}

export function formatNumber(n) {
  return new Intl.NumberFormat(lang, { notation: n >= 10000 ? 'compact' : 'standard', maximumFractionDigits: 1 }).format(n);
}

export function formatDate(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : new Intl.DateTimeFormat(lang, { dateStyle: 'medium' }).format(date);
}

/** Stars as text, with one accessible name ("4.5 out of 5"). */
export function stars(avg, count) {
  const full = Math.round(avg);
  const label = count === undefined ? t('rating.stars', { n: avg }) : t('rating.summary', { avg: avg.toFixed(1), count });
  return h('span', { class: 'stars', role: 'img', 'aria-label': label, text: '★'.repeat(full) + '☆'.repeat(5 - full) });
}

export function debounce(fn, ms) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/** A plugin's icon, or its first letter on a coloured square when it has none (or it fails). */
export function pluginIcon(plugin, size = 'icon') {
  const letter = h('span', { class: `${size} letter`, 'aria-hidden': 'true', text: (plugin.name || plugin.id || '?').trim().charAt(0).toUpperCase() });
  const src = imageUrl(plugin.icon);
  if (!src) return letter;
  const img = h('img', { class: size, src, alt: '', loading: 'lazy', decoding: 'async', width: 64, height: 64 });
  img.addEventListener('error', () => img.replaceWith(letter), { once: true });
  return img;
}

export function pluginPath(id) {
  return '/apps/plugin/' + encodeURIComponent(id);
}

/** A store card: icon, name, author, version, stars, installs; the whole card is one link. */
export function pluginCard(plugin) {
  const span = (className, text) => h('span', { class: className, text });
  const meta = t('card.by', { author: plugin.author || plugin.submitter || '', version: plugin.version });
  const installs = t('card.installs', { n: formatNumber(plugin.installCount || 0) });
  const stats = h('span', { class: 'card-stats' }, stars(plugin.ratingAvg || 0, plugin.ratingCount || 0), span('', installs));
  const body = h('span', { class: 'card-body' }, span('card-name', plugin.name), span('card-meta', meta), span('card-desc', plugin.description || ''), stats);
  return h('li', { class: 'card', dataset: { id: plugin.id } }, h('a', { href: pluginPath(plugin.id), class: 'card-link' }, pluginIcon(plugin), body));
}

/** A status line: `state` is loading, empty, error or done (styles and tests read it). */
export function setStatus(node, state, text) {
  node.dataset.state = state;
  node.textContent = text || '';
}

/** The session: `{loggedIn, user}`, asked once per page. */
let session;
export function currentSession() {
  session ??= api('/apps/api/me').catch(() => ({ loggedIn: false, user: null }));
  return session;
}

/** Back to the login, returning here afterwards. */
export function loginHref() {
  return '/apps/auth/login?return_to=' + encodeURIComponent(location.pathname + location.search);
}
