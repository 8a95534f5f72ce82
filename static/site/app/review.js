// The review queue (administrators): new plugins and updates waiting for review,
// each update as a field-by-field diff; approve, reject with a reason; and the
// featured switch of approved plugins.
import { sessionReady } from './header.js';
import { $, api, button, enc, errorText, failed, formatDate, h, loginFirst, pluginIcon, pluginPath, setStatus, t } from './lib.js';

const status = $('status');
const FIELDS = ['name', 'version', 'author', 'description', 'longDescription', 'download', 'sha256', 'url', 'icon', 'tags', 'permissions', 'screenshots'];

/** A field's value as text: lists one per line, screenshots by their links. */
function show(value) {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'object' && item ? item.url : String(item))).join('\n') || '—';
  return String(value);
}

/**
 * An update as a field-by-field diff (now / proposed); a new plugin as the fields
 * it brings, for the reviewer to read before approving.
 */
function table(plugin, update) {
  const th = (text, scope = 'row') => h('th', { scope, text });
  const rows = FIELDS.filter((field) => (update ? field in update : field !== 'name')).map((field) =>
    h('tr', { dataset: { field } }, th(t('field.' + field)), update ? [h('td', {}, h('del', { text: show(plugin[field]) })), h('td', {}, h('ins', { text: show(update[field]) }))] : h('td', { text: show(plugin[field]) })),
  );
  return h(
    'table',
    { class: 'diff' },
    h('caption', { class: 'visually-hidden', text: update ? t('review.diffCaption', { name: plugin.name }) : plugin.name }),
    update && h('thead', {}, h('tr', {}, ['review.field', 'review.now', 'review.proposed'].map((key) => th(t(key), 'col')))),
    h('tbody', {}, rows),
  );
}

/** A reason's input with its (visually hidden) label, ids made from `id`. */
export function reasonInput(id) {
  const input = h('input', { id: 'reason-' + id, maxLength: 1000, placeholder: t('review.reasonPlaceholder') });
  return [input, h('label', { htmlFor: input.id, class: 'visually-hidden', text: t('review.reason') })];
}

/** A queue entry's head: icon, linked name, who and when, a badge. */
export const rowHead = (plugin, detail, badge) =>
  h('div', { class: 'row-head' }, pluginIcon(plugin), h('div', { class: 'grow' }, h('a', { href: pluginPath(plugin.id), text: plugin.name ?? plugin.id }), h('div', { class: 'muted', text: detail })), h('span', { class: 'badge pending', text: badge }));

function item(plugin, kind) {
  const [reason, label] = reasonInput(plugin.id);
  const message = h('p', { class: 'status', role: 'status' });
  const node = h('li', { class: 'row-item', dataset: { id: plugin.id, kind } });
  const decide = (action) => () =>
    api(`${pluginApi(plugin.id)}/review`, { method: 'POST', body: action === 'reject' && reason.value.trim() ? { action, reason: reason.value.trim() } : { action } }).then(
      () => node.replaceChildren(h('p', { class: 'done', text: t('review.' + action + 'd', { name: plugin.name }) })),
      (error) => failed(message, error),
    );
  const update = plugin.pendingUpdate;
  node.append(
    rowHead(plugin, t('review.by', { user: plugin.submitter, date: formatDate(update?.submittedAt ?? plugin.createdAt) }), t(kind === 'update' ? 'review.kindUpdate' : 'review.kindNew')),
    table(plugin, update),
    h('div', { class: 'actions' }, button('primary approve', t('review.approve'), decide('approve')), h('div', { class: 'reason' }, label, reason, button('danger reject', t('review.reject'), decide('reject')))),
    message,
  );
  return node;
}

/** For an update, the live long description is only in the detail. */
const withDetail = async (plugin) => ('longDescription' in plugin.pendingUpdate ? (await api(pluginApi(plugin.id))).plugin : plugin);
const pluginApi = (id) => '/apps/api/plugins/' + enc(id);

async function load() {
  const { user } = await sessionReady;
  if (!user?.admin) return user ? setStatus(status, 'error', t('review.adminsOnly')) : loginFirst(status);
  setStatus(status, 'loading', t('store.loading'));
  try {
    const [fresh, updates] = await Promise.all([
      api('/apps/api/plugins?scope=admin&status=pending&limit=500'),
      api('/apps/api/plugins?scope=admin&update=pending&limit=500'),
    ]);
    const detailed = await Promise.all(updates.plugins.map(withDetail));
    $('queue').replaceChildren(...fresh.plugins.map((p) => item(p, 'new')), ...detailed.map((p) => item(p, 'update')));
    const total = fresh.total + updates.total;
    setStatus(status, total ? 'done' : 'empty', total ? t('review.count', { total }) : t('review.empty'));
  } catch (error) {
    failed(status, error);
  }
}

// Featured: find approved plugins and switch them on or off.
function featureRow(plugin) {
  const box = h('input', { type: 'checkbox', id: 'feat-' + plugin.id, checked: plugin.featured });
  const message = h('span', { class: 'status', role: 'status' });
  box.onchange = () =>
    api(pluginApi(plugin.id), { method: 'PATCH', body: { featured: box.checked } }).then(
      () => setStatus(message, 'done', t(box.checked ? 'review.featuredOn' : 'review.featuredOff')),
      (error) => failed(message, error, (box.checked = !box.checked)),
    );
  return h('li', { class: 'row-item', dataset: { id: plugin.id } }, h('div', { class: 'row-head' }, pluginIcon(plugin), h('label', { class: 'grow', htmlFor: 'feat-' + plugin.id }, box, ' ', t('review.featuredLabel', { name: plugin.name })), message));
}

async function findFeatured(q) {
  const params = new URLSearchParams({ public: '1', limit: '20' });
  if (q) params.set('q', q);
  else params.set('featured', '1');
  try {
    const { plugins } = await api('/apps/api/plugins?' + params);
    $('feature-list').replaceChildren(...plugins.map(featureRow));
  } catch (error) {
    $('feature-list').replaceChildren(h('li', { class: 'error', text: errorText(error) }));
  }
}
$('feature-form').onsubmit = (event) => findFeatured($('feature-q').value.trim(), event.preventDefault());

load().then(() => sessionReady.then(({ user }) => user?.admin && findFeatured('')));
