// The /SF search page. Thousands of names are filtered in memory as you type (one
// fetch of /api/svg_files, one of /api/svg_aliases for the SF Symbols names each
// icon also answers to), and only a page of matches is put into the DOM at a time,
// with lazy images, so typing never waits on rendering. Every name reaches the DOM
// through textContent or setAttribute: never as markup.

const PAGE_SIZE = 120;
const SEARCH_DEBOUNCE_MS = 60;
const COLOR_DEBOUNCE_MS = 150;
const TOAST_MS = 2500;
const MIN_SIZE = 16;
const MAX_SIZE = 1024;
const DEFAULT_COLOR = '#000000';
const HEX = /^#?([0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

const $ = (id) => document.getElementById(id);
const els = {
  search: $('search'),
  picker: $('color-picker'),
  colorText: $('color-text'),
  sizeField: $('size-field'),
  size: $('size'),
  status: $('status'),
  results: $('results'),
  more: $('more'),
  toast: $('toast'),
};

const state = {
  /** [{ name, lower, aliases }] sorted by name; aliases are the other names that serve the icon. */
  icons: [],
  matches: [],
  shown: 0,
  query: '',
  /** Always `#` and hex: named colours are converted, so the server accepts every value we send. */
  color: DEFAULT_COLOR,
  format: 'svg',
  size: 128,
};

// ---- colours -------------------------------------------------------------------

const probe = document.createElement('canvas').getContext('2d');

/** Any CSS colour the browser understands, as `#rrggbb` or `#rrggbbaa`; null otherwise. */
function toHex(text) {
  const value = text.trim();
  if (value === '') return null;
  const hex = HEX.exec(value);
  if (hex) return '#' + hex[1].toLowerCase();
  if (!probe || value.length > 64) return null;
  // fillStyle ignores what it cannot parse: setting it from two different starting
  // values and getting the same answer means the text was understood.
  probe.fillStyle = '#000000';
  probe.fillStyle = value;
  const first = probe.fillStyle;
  probe.fillStyle = '#ffffff';
  probe.fillStyle = value;
  if (probe.fillStyle !== first) return null;
  if (/^#[0-9a-f]{6}$/.test(first)) return first;
  const rgba = /^rgba\((\d+), (\d+), (\d+), ([\d.]+)\)$/.exec(first);
  if (!rgba) return null;
  const alpha = Math.round(Number(rgba[4]) * 255);
  return '#' + [rgba[1], rgba[2], rgba[3], alpha].map((n) => Number(n).toString(16).padStart(2, '0')).join('');
}

function setColor(hex) {
  state.color = hex;
  if (/^#[0-9a-f]{6}$/.test(hex)) els.picker.value = hex;
  else if (/^#[0-9a-f]{8}$/.test(hex)) els.picker.value = hex.slice(0, 7);
  scheduleRecolor();
}

// ---- URLs ----------------------------------------------------------------------

function colorQuery(params) {
  if (state.color !== DEFAULT_COLOR && state.color !== '#000') params.set('color', state.color);
}

/** Thumbnails are always SVG: cheap for the server, sharp at any zoom. */
function previewUrl(name) {
  const params = new URLSearchParams();
  colorQuery(params);
  const query = params.toString();
  return '/SF/' + encodeURIComponent(name) + '.svg' + (query ? '?' + query : '');
}

/** The link that gets copied: absolute, with the chosen colour, format and size. */
function iconUrl(name) {
  const params = new URLSearchParams();
  colorQuery(params);
  if (state.format === 'png') {
    params.set('png', 'true');
    params.set('size', String(state.size));
  }
  const query = params.toString();
  const path = '/SF/' + encodeURIComponent(name) + (state.format === 'svg' ? '.svg' : '');
  return new URL(path + (query ? '?' + query : ''), location.origin).href;
}

// ---- search and results --------------------------------------------------------

/**
 * All terms must occur in the name or in one of its aliases (`xmark` finds `x`).
 * Ranked: the exact name or alias, then names where every term starts a word (`git`
 * finds brand-git before brand-dolby-digital), then the rest; alphabetical within
 * each group.
 */
function search(text) {
  const terms = text.toLowerCase().split(/[\s,]+/).filter(Boolean);
  if (terms.length === 0) return state.icons;
  const exactName = terms.join('-');
  const exactAlias = terms.join('.');
  const exact = [];
  const wordStarts = [];
  const contains = [];
  const matches = (name) => terms.every((term) => name.includes(term));
  for (const icon of state.icons) {
    const name = icon.lower;
    if (!matches(name) && !icon.aliases.some(matches)) continue;
    if (name === exactName || icon.aliases.includes(exactAlias)) exact.push(icon);
    else if (terms.every((term) => name.startsWith(term) || name.includes('-' + term))) wordStarts.push(icon);
    else contains.push(icon);
  }
  return exact.concat(wordStarts, contains);
}

function showMatches() {
  state.query = els.search.value;
  state.matches = search(state.query);
  state.shown = 0;
  els.results.replaceChildren();
  appendPage();
  updateStatus();
}

function appendPage() {
  const fragment = document.createDocumentFragment();
  const end = Math.min(state.matches.length, state.shown + PAGE_SIZE);
  for (let i = state.shown; i < end; i++) fragment.append(tile(state.matches[i]));
  els.results.append(fragment);
  state.shown = end;
  els.more.hidden = state.shown >= state.matches.length;
  if (!els.more.hidden) els.more.textContent = `Show more (${state.matches.length - state.shown} left)`;
}

function tile({ name, aliases }) {
  const item = document.createElement('li');
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'tile';
  button.dataset.name = name;
  button.title = aliases.length > 0 ? `${name}\nAlso: ${aliases.join(', ')}` : name;
  const image = document.createElement('img');
  image.loading = 'lazy';
  image.decoding = 'async';
  image.width = 36;
  image.height = 36;
  image.alt = '';
  image.src = previewUrl(name);
  const label = document.createElement('span');
  label.className = 'label';
  label.textContent = name;
  button.append(image, label);
  if (aliases.length > 0) {
    const also = document.createElement('span');
    also.className = 'aliases';
    also.textContent = aliases.join(' · ');
    button.append(also);
  }
  item.append(button);
  return item;
}

function updateStatus() {
  const total = state.icons.length;
  const found = state.matches.length;
  els.status.textContent = state.query.trim()
    ? `${found} of ${total} icons match "${state.query.trim()}"`
    : `${total} icons`;
  els.status.dataset.count = String(found);
}

let recolorTimer;
function scheduleRecolor() {
  clearTimeout(recolorTimer);
  recolorTimer = setTimeout(() => {
    for (const button of els.results.querySelectorAll('.tile')) {
      button.querySelector('img').src = previewUrl(button.dataset.name);
    }
  }, COLOR_DEBOUNCE_MS);
}

// ---- copying -------------------------------------------------------------------

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (plain http off localhost) or no permission: the old way.
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.append(area);
    area.select();
    let copied = false;
    try {
      copied = document.execCommand('copy');
    } catch {
      copied = false;
    }
    area.remove();
    return copied;
  }
}

let toastTimer;
function showToast(message, url) {
  els.toast.textContent = message;
  els.toast.dataset.url = url;
  els.toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (els.toast.hidden = true), TOAST_MS);
}

async function onTileClick(event) {
  const button = event.target.closest('.tile');
  if (!button) return;
  const url = iconUrl(button.dataset.name);
  button.dataset.url = url;
  const copied = await copyText(url);
  for (const other of els.results.querySelectorAll('.tile[data-copied]')) delete other.dataset.copied;
  button.dataset.copied = '';
  showToast(copied ? `Copied: ${url}` : `Copy this link: ${url}`, url);
}

// ---- wiring --------------------------------------------------------------------

let searchTimer;
els.search.addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(showMatches, SEARCH_DEBOUNCE_MS);
});

els.picker.addEventListener('input', () => {
  els.colorText.value = els.picker.value;
  els.colorText.removeAttribute('aria-invalid');
  setColor(els.picker.value.toLowerCase());
});

els.colorText.addEventListener('input', () => {
  const hex = toHex(els.colorText.value);
  if (hex === null) {
    els.colorText.setAttribute('aria-invalid', 'true');
    return;
  }
  els.colorText.removeAttribute('aria-invalid');
  setColor(hex);
});

for (const radio of document.querySelectorAll('input[name="format"]')) {
  radio.addEventListener('change', () => {
    if (!radio.checked) return;
    state.format = radio.value === 'png' ? 'png' : 'svg';
    els.sizeField.hidden = state.format !== 'png';
  });
}

els.size.addEventListener('input', () => {
  const text = els.size.value.trim();
  const size = /^\d{1,4}$/.test(text) ? Number(text) : NaN;
  const valid = size >= MIN_SIZE && size <= MAX_SIZE;
  if (valid) {
    state.size = size;
    els.size.removeAttribute('aria-invalid');
  } else {
    els.size.setAttribute('aria-invalid', 'true');
  }
});

els.results.addEventListener('click', onTileClick);
els.more.addEventListener('click', appendPage);

// Scrolling near the end loads the next page by itself; the button stays for keyboards.
if ('IntersectionObserver' in window) {
  new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting) && !els.more.hidden) appendPage();
  }, { rootMargin: '400px' }).observe(els.more);
}

/** file name → [aliases]; the page works without them if the list cannot be had. */
async function loadAliases() {
  const byFile = new Map();
  try {
    const response = await fetch('/api/svg_aliases');
    if (!response.ok) return byFile;
    const aliases = await response.json();
    for (const [alias, file] of Object.entries(aliases)) {
      if (typeof file !== 'string') continue;
      if (!byFile.has(file)) byFile.set(file, []);
      byFile.get(file).push(alias);
    }
  } catch {
    // No aliases shown: searching by icon name still works.
  }
  return byFile;
}

async function start() {
  const aliasesLoaded = loadAliases();
  try {
    const response = await fetch('/api/svg_files');
    if (!response.ok) throw new Error('HTTP ' + response.status);
    const files = await response.json();
    if (!Array.isArray(files)) throw new Error('not a list');
    const aliasesOf = await aliasesLoaded;
    state.icons = files
      .filter((file) => typeof file === 'string' && file.endsWith('.svg'))
      .map((file) => {
        const name = file.slice(0, -'.svg'.length);
        return { name, lower: name.toLowerCase(), aliases: aliasesOf.get(file) ?? [] };
      })
      // By name, not file name: `a-b` before `a-b-2` (the `.svg` sorted them the other way).
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    els.status.textContent = 'The icon list could not be loaded. Reload the page to try again.';
    return;
  }
  const typed = toHex(els.colorText.value);
  if (typed) state.color = typed;
  const checked = document.querySelector('input[name="format"]:checked');
  state.format = checked && checked.value === 'png' ? 'png' : 'svg';
  els.sizeField.hidden = state.format !== 'png';
  document.body.dataset.ready = '';
  showMatches();
}

start();
