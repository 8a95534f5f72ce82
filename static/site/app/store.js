// @ts-check
// The store: search as you type, tag chips, sort, the featured row, paged cards.
// The query, tag, sort and page live in the URL, so a search can be shared and
// the back button walks through the searches.
import './header.js';
import { $, api, button, errorText, pluginCard, setStatus, t, twoRows } from './lib.js';

const PAGE_SIZE = 24;
const TYPING_DELAY_MS = 250;

const input = $('q');
const sortSelect = $('sort');
const results = $('results');
const status = $('status');
let inFlight;
/** While typing, the first change adds a history entry and the following ones replace it. */
let typing = false;

function readUrl() {
  const params = new URLSearchParams(location.search);
  const page = parseInt(params.get('page')) || 1;
  return { q: params.get('q') || '', tag: params.get('tag') || '', sort: params.get('sort') || '', page: page > 0 && page < 10000 ? page : 1 };
}

/** `q`, `tag` and `sort` of the state when set, into `params`. */
function withFilters(state, params = new URLSearchParams()) {
  for (const key of ['q', 'tag', 'sort']) if (state[key]) params.set(key, state[key]);
  return params;
}

function writeUrl(state, replace) {
  const params = withFilters(state);
  if (state.page > 1) params.set('page', state.page);
  const url = location.pathname + (params.size ? '?' + params : '');
  if (url === location.pathname + location.search) return;
  history[replace ? 'replaceState' : 'pushState'](null, '', url);
}

function change(patch, { replace = false } = {}) {
  const state = { ...readUrl(), page: 1, ...patch };
  writeUrl(state, replace);
  load(state);
}

async function load(state = readUrl()) {
  if (document.activeElement !== input) input.value = state.q;
  sortSelect.value = state.sort;
  inFlight?.abort();
  const controller = (inFlight = new AbortController());
  const params = withFilters(state, new URLSearchParams({ public: '1', limit: String(PAGE_SIZE), offset: String((state.page - 1) * PAGE_SIZE) }));
  results.setAttribute('aria-busy', 'true');
  setStatus(status, 'loading', t('store.loading'));
  loadFeatured();
  try {
    const answer = await api('/apps/api/plugins?' + params, null, 'GET', controller.signal);
    render(state, answer);
  } catch (error) {
    if (error?.name === 'AbortError') return;
    results.replaceChildren();
    setStatus(status, 'error', t('store.error', { reason: errorText(error) }));
    status.append(' ', button('secondary', t('store.retry'), () => load()));
    $('pager').hidden = true;
  } finally {
    if (inFlight === controller) results.setAttribute('aria-busy', 'false');
  }
}

function render(state, { plugins, total }) {
  results.replaceChildren(...plugins.map(pluginCard));
  renderTags(state, plugins);
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  if (!plugins.length) {
    const hint = state.tag ? t('store.emptyTag', { tag: state.tag }) : state.q ? t('store.emptyQuery', { q: state.q }) : t('store.emptyAll');
    setStatus(status, 'empty', hint);
  } else {
    const first = (state.page - 1) * PAGE_SIZE + 1;
    setStatus(status, 'done', t('store.count', { first, last: first + plugins.length - 1, total }));
  }
  $('pager').hidden = pages <= 1 && state.page === 1;
  $('page-info').textContent = t('store.pageOf', { page: state.page, pages });
  $('prev').disabled = state.page <= 1;
  $('next').disabled = state.page >= pages;
}

/** Chips for the tags of what is shown (the API has no tag list), the active one first. */
function renderTags(state, plugins) {
  const chosen = state.tag.toLowerCase();
  const counts = new Map();
  for (const tag of plugins.flatMap((plugin) => plugin.tags || [])) counts.set(tag.toLowerCase(), (counts.get(tag.toLowerCase()) || 0) + 1);
  const tags = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([tag]) => tag).slice(0, 16);
  if (chosen && !tags.includes(chosen)) tags.unshift(chosen);
  $('tags').replaceChildren(
    ...tags.map((tag) => {
      const active = tag === chosen;
      return button('chip' + (active ? ' active' : ''), tag, () => change({ tag: active ? '' : tag }), { dataset: { tag }, 'aria-pressed': String(active) });
    }),
  );
  twoRows($('tags'));
}

/** The featured row, over the front page only (no query, tag or page); read once. */
let featured;
function loadFeatured() {
  const front = ({ q, tag, page }) => !q && !tag && page === 1;
  featured ??= api('/apps/api/plugins?public=1&featured=1&limit=12').then(({ plugins }) => ($('featured').replaceChildren(...plugins.map(pluginCard)), plugins.length), () => 0);
  $('featured-section').hidden = true;
  featured.then((shown) => ($('featured-section').hidden = !shown || !front(readUrl())));
}

let timer;
input.oninput = () => {
  clearTimeout(timer);
  timer = setTimeout(() => {
    change({ q: input.value.trim() }, { replace: typing });
    typing = true;
  }, TYPING_DELAY_MS);
};
input.onblur = () => (typing = false);
$('search-form').onsubmit = (event) => {
  event.preventDefault();
  typing = false;
  change({ q: input.value.trim() });
};
sortSelect.onchange = () => change({ sort: sortSelect.value });
$('prev').onclick = () => change({ page: readUrl().page - 1 });
$('next').onclick = () => change({ page: readUrl().page + 1 });
onpopstate = () => {
  typing = false;
  input.value = readUrl().q;
  load();
};

load();
