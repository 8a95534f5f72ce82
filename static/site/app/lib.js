// @ts-check
// The pages' shared helpers: strings, the JSON API and its envelope, and building
// DOM from data. Everything a user wrote reaches the page through text nodes
// (textContent), never through HTML parsing; links from users must be https.

const strings = JSON.parse(document.getElementById('strings')?.textContent || '{}');
export const lang = document.documentElement.lang || 'en';
export const enc = encodeURIComponent;
/**
 * The element with this id: any, since each page knows what it put there (a form,
 * an input, a dialog).
 * @param {string} id
 * @returns {any}
 */
export const $ = (id) => document.getElementById(id);
/**
 * Sets the text of element `id`.
 * @param {string} id
 * @param {string | number} value
 */
export const text = (id, value) => ($(id).textContent = value);

/**
 * A catalogue string, `{name}` replaced by `vars.name`.
 * @param {string} key
 * @param {Record<string, string | number>} [vars]
 * @returns {string}
 */
export function t(key, vars) {
  // A `.one` variant, where the catalogue has one, for a count of 1 ("1 install").
  const text = (vars && (vars.n == 1 || vars.count == 1 || vars.total == 1) && strings[key + '.one']) || strings[key] || key;
  return vars ? text.replace(/\{(\w+)\}/g, (whole, name) => vars[name] ?? whole) : text;
}

/** A failed call: an Error with the API's message (or ours), the status, code and field. */
const failure = (status, body) => Object.assign(new Error(body?.error || t('error.generic')), { status, code: body?.code || (status ? '' : 'NETWORK'), field: body?.field });

/** fetch + envelope, `body` sent as JSON (POST unless told): the answer's fields on success, a failure otherwise. */
export async function api(path, body, method = body ? 'POST' : 'GET', signal) {
  const headers = { accept: 'application/json' };
  if (body) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(path, { method, signal, headers, credentials: 'same-origin', body: body && JSON.stringify(body) });
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    throw failure(0, { error: t('error.network') });
  }
  // Not JSON: reported as the status's error.
  const data = await res.json().catch(() => null);
  if (!res.ok || !data || data.success === false) throw failure(res.status, data);
  return data;
}

/** What to tell a person about a failed call. */
export function errorText(error) {
  const { code, status } = error || {};
  const key = code === 'NETWORK' ? 'network' : status === 401 ? 'login' : status === 429 ? 'rate' : status >= 500 ? 'server' : '';
  return key ? t('error.' + key) : error?.message || t('error.generic');
}

/**
 * An element, `tag` with its classes (`span.muted`): `props` sets properties (`text` → textContent, `class`, `on*`
 * handlers, `dataset`; `role` and `aria-*` as attributes); children are nodes or strings
 * (strings become text nodes).
 * @param {string} tag
 * @param {Record<string, any>} [props]
 * @param {...any} children
 * @returns {any} the element (typed by its caller: an input, an img...)
 */
export function h(tag, props = {}, ...children) {
  // `tag.class.other`: the element's classes.
  const [name, ...classes] = tag.split('.');
  const node = document.createElement(name);
  node.className = classes.join(' ');
  for (const [key, value] of Object.entries(props)) {
    if (value == null || value === false) continue;
    if (key === 'text') node.textContent = value;
    else if (key === 'class') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key === 'role' || key.startsWith('aria-')) node.setAttribute(key, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node[key] = value;
  }
  for (const child of children.flat()) if (child != null && child !== false) node.append(child);
  return node;
}

/** A `type="button"` button. */
export const button = (className, text, onclick, props, ...children) => h('button', { type: 'button', class: className, text, onclick, ...props }, children);

/** A date as a muted <time>. */
export const when = (iso, withTime) => h('time.muted', { dateTime: iso, text: formatDate(iso, withTime) });

/** An https URL as a string, or null: users' links are never anything else. */
export function httpsUrl(value) {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Images may also be in-site paths (docs/api.md), resolved against this site. */
export const imageUrl = (value) => (typeof value !== 'string' ? null : /^\/(?![/\\])/.test(value) ? value : httpsUrl(value));

export const UGC_REL = 'noopener noreferrer nofollow ugc';

/** Markdown as the server reads it: [tag, attributes, ...children], built element by element, never parsed as HTML. */
export const markdown = (nodes) => nodes.map((n) => (typeof n == 'string' ? n : h(n[0], n[1], markdown(n.slice(2)))));

/** A user's text: its line breaks kept (CSS), https links made clickable, nothing else. */
export function richText(text) {
  text = String(text ?? '');
  const fragment = document.createDocumentFragment();
  let last = 0;
  for (const match of text.matchAll(/https:\/\/[^\s<>"'`]+/g)) {
    // Trailing punctuation belongs to the sentence, not the link.
    const href = match[0].replace(/[.,;:!?)\]]+$/, '');
    const url = httpsUrl(href);
    fragment.append(text.slice(last, match.index), url ? h('a', { href: url, text: href, target: '_blank', rel: UGC_REL }) : href);
    last = match.index + href.length;
  }
  fragment.append(text.slice(last));
  return fragment;
}

/** A size in bytes as a person reads it ("488 B", "12.5 kB"). */
export function formatSize(n) {
  // Intl's short byte unit reads "488 byte" in English: bytes are written B in every language.
  if (n < 1024) return n + ' B';
  const [value, unit] = n < 1048576 ? [n / 1024, 'kilobyte'] : [n / 1048576, 'megabyte'];
  return new Intl.NumberFormat(lang, { style: 'unit', unit, maximumFractionDigits: 1 }).format(value);
}

/** A package's changelog: its Markdown tree (as the long description), else its text. */
export const changelog = (version) => h('div.prose', {}, version.changelogTree?.length ? markdown(version.changelogTree) : richText(version.changelog));

/** A hash in full, in a font that tells its digits apart, breaking anywhere. */
export const hash = (sha256) => h('code.hash', { text: sha256 });

export const formatNumber = (n) => new Intl.NumberFormat(lang, { notation: n >= 10000 ? 'compact' : 'standard', maximumFractionDigits: 1 }).format(n);

/** A date, with its time of day when `withTime`. */
export function formatDate(iso, withTime) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: withTime ? 'short' : undefined }).format(date);
}

/** Stars as text, with one accessible name ("4.5 out of 5"); none rated yet says so (five hollow stars would read as zero). */
export function stars(avg, count) {
  if (count === 0) return h('span.muted', { text: t('rating.none') });
  const full = Math.round(avg);
  const label = count === undefined ? t('rating.stars', { n: avg }) : t('rating.summary', { avg: avg.toFixed(1), count });
  return h('span.stars', { role: 'img', 'aria-label': label, text: '★'.repeat(full) + '☆'.repeat(5 - full) });
}

/**
 * A bar chart of `values` (an inline SVG, ours: no library), the tallest bar full
 * height, a day without any a thin line. Into `svg`, else a new one; returns it.
 */
export function barChart(values, svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg')) {
  const top = Math.max(1, ...values);
  svg.setAttribute('viewBox', `0 0 ${values.length} 100`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.replaceChildren(
    ...values.map((value, i) => {
      const bar = document.createElementNS(svg.namespaceURI, 'rect');
      const height = Math.max(1, (100 * value) / top);
      for (const [name, number] of Object.entries({ x: i + 0.15, y: 100 - height, width: 0.7, height })) bar.setAttribute(name, number);
      return bar;
    }),
  );
  return svg;
}

/** A person: their avatar (when it is an https or in-site image) and name. */
export function who(name, avatar) {
  const src = imageUrl(avatar);
  return h('span.who', {}, src && h('img.avatar', { src, alt: '', width: 28, height: 28, loading: 'lazy' }), h('span.username', { text: name }));
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

export const pluginPath = (id) => '/apps/plugin/' + enc(id);

/**
 * The server's plugin rules, put into the page when it was rendered (src/services/site/store/page-rules.ts).
 * @type {{ fields: string[], maxLength: Record<string, number>, maxScreenshots: number, maxImageBytes: number, maxTags: number, maxTagLength: number }}
 */
export const RULES = JSON.parse(document.getElementById('rules')?.textContent || 'null');
/** A plugin's fields an author writes: its texts and links, then its lists (the server's order). */
export const FIELDS = RULES.fields;

/** A list entry's head: the plugin's icon, its linked name, a line about it, then `extra`. */
export const rowHead = (plugin, about, ...extra) =>
  h('div.row-head', {}, pluginIcon(plugin), h('div.grow', {}, h('a', { href: pluginPath(plugin.id), text: plugin.name ?? plugin.id }), h('div.muted', { text: about })), extra);

/** A store card: icon, name, author, version, stars, installs; the whole card is one link. */
export function pluginCard(plugin) {
  const span = (className, text) => h('span', { class: className, text });
  const meta = t('card.by', { author: plugin.author || plugin.submitter || '', version: plugin.version });
  const stats = h('span.card-stats', {}, stars(plugin.ratingAvg || 0, plugin.ratingCount || 0), span('', t('card.installs', { n: formatNumber(plugin.installCount || 0) })));
  const body = h('span.card-body', {}, span('card-name', plugin.name), span('card-meta', meta), span('card-desc', plugin.description || ''), stats);
  return h('li.card', { dataset: { id: plugin.id } }, h('a.card-link', { href: pluginPath(plugin.id) }, pluginIcon(plugin), body));
}

/** A status line: `state` is loading, empty, error or done (styles and tests read it). */
export function setStatus(node, state, text) {
  node.dataset.state = state;
  node.textContent = text || '';
}

/** Copies an input's value, or where the clipboard is refused, selects it for Ctrl+C; says which in `status`. */
export const copy = (input, status) =>
  navigator.clipboard.writeText(input.value).then(() => 'copy.done', () => (input.select(), 'copy.manual')).then((key) => setStatus(status, 'done', t(key)));

/**
 * A form whose submit runs `send()`: what it returns (a check that failed) is
 * shown in `error`, emptied first; so is a failed call, as the string of
 * `messages[code or status]` when it has one.
 */
export function onSubmit(form, error, send, messages = {}) {
  form.onsubmit = async (event) => {
    event.preventDefault();
    error.textContent = '';
    try {
      error.textContent = (await send()) || '';
    } catch (failed) {
      const key = messages[failed.code] || messages[failed.status];
      error.textContent = key ? t(key) : errorText(failed);
    }
  };
}

/** A status line saying what failed. */
export const failed = (node, error) => setStatus(node, 'error', errorText(error));

/**
 * A list read from the API: `status` says loading, then `read()` gives the items
 * and what to say of them; each becomes `item(it)` in `list`, none says `emptyKey`'s
 * string; a failure says what failed. True when it could be read.
 */
export async function showList(status, list, read, item, emptyKey) {
  setStatus(status, 'loading', t('store.loading'));
  try {
    const [items, said] = await read();
    list.replaceChildren(...items.map(item));
    setStatus(status, items.length ? 'done' : 'empty', items.length ? said : t(emptyKey));
    return true;
  } catch (error) {
    failed(status, error);
  }
}

/** The session: `{loggedIn, user}`, asked once per page. */
let session;
export const currentSession = () => (session ??= api('/apps/api/me').catch(() => ({ loggedIn: false, user: null })));

/** Back to the login, returning here afterwards. */
export const loginHref = () => '/apps/auth/login?return_to=' + enc(location.pathname + location.search);

/** The status line of a page for logged-in users only, for a visitor: log in first, with the link. */
export function loginFirst(node) {
  setStatus(node, 'done', t('form.loginFirst'));
  node.append(' ', h('a', { href: loginHref(), text: t('nav.login') }));
}

/** A textarea's live counter against `max` characters; returns its check (true when within). */
export function counted(textarea, counter, max = 500) {
  const update = () => {
    const length = [...textarea.value].length;
    counter.textContent = t('form.counter', { n: length, max });
    counter.classList.toggle('over', length > max);
    textarea.setAttribute('aria-invalid', String(length > max));
    return length <= max;
  };
  textarea.addEventListener('input', update);
  update();
  return update;
}

/**
 * The permissions the Bloret launcher grants without asking (its
 * modules/plugin_host/permissions.py); every other id, unknown ones included, is
 * high risk, as the launcher and the API (`permissions: [{id, risk}]`) rate them.
 */
export const SAFE_PERMISSIONS = ['ui.nav', 'ui.theme', 'ui.settings', 'ui.toolbar', 'ui.home', 'ui.tools', 'config.read'];

/** A permission's words in the page's language (the catalogues' `perm.<id>`); an id they do not know, as itself. */
export const permissionWords = (id) => strings['perm.' + id] || id;

/**
 * A permission (an id, or the API's `{id, risk}`) as a list item: its words and id,
 * a high-risk one marked in words (not by colour alone), and `change` ('added' or
 * 'removed', against the live version) said too. `data-risk` and `data-change` for
 * styles and tests.
 */
export function permissionItem(permission, change) {
  // Also as a map() callback, whose second argument is an index, not a change.
  if (typeof change != 'string') change = undefined;
  const id = String(permission.id ?? permission);
  const risk = permission.risk ?? (SAFE_PERMISSIONS.includes(id) ? 'safe' : 'high');
  const words = permissionWords(id);
  return h('li', { dataset: change ? { risk, change } : { risk } },
    risk == 'high' && h('span.badge.rejected', { text: t('perm.high') }), change && h('span.badge.pending', { text: t('perm.' + change) }), ' ', words, words != id && [' ', h('code', { text: id })]);
}

/**
 * A list of chips in at most two rows (issue 34: at 390 px a plugin's tags took
 * five): those past them hidden behind a "more" chip, which shows them all. Fitted
 * again when the window's width changes.
 */
export function twoRows(list) {
  let open = false;
  const more = button('chip', t('chips.more'), () => {
    const first = list.children[shown];
    open = true;
    fit();
    // Focus goes to the first chip it showed, not back to the top of the page.
    (first.querySelector('a') || first).focus();
  });
  const holder = list.tagName == 'UL' ? h('li', {}, more) : more;
  let shown = 0;
  const fit = () => {
    holder.remove();
    const items = [...list.children];
    for (const item of items) item.hidden = false;
    shown = items.length;
    const rows = () => new Set(items.filter((item) => !item.hidden).map((item) => item.offsetTop).concat(holder.offsetTop || [])).size;
    if (open || rows() < 3) return;
    list.append(holder);
    while (shown && rows() > 2) items[--shown].hidden = true;
  };
  fit();
  list.fit = fit;
  if (!list.dataset.fits) {
    list.dataset.fits = '1';
    addEventListener('resize', () => list.fit());
  }
}
