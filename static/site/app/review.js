// The review queue (administrators): new plugins and updates waiting for review,
// each update as a field-by-field diff; approve, reject with a reason; and the
// featured switch of approved plugins.
import { sessionReady } from './header.js';
import { $, api, errorText, formatDate, h, loginHref, pluginIcon, pluginPath, setStatus, t } from './lib.js';

const status = $('status');
const FIELDS = ['name', 'version', 'author', 'description', 'longDescription', 'download', 'sha256', 'url', 'icon', 'tags', 'permissions', 'screenshots'];

/** A field's value as text: lists one per line, screenshots by their links. */
function show(value) {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'object' && item ? item.url : String(item))).join('\n') || '—';
  return String(value);
}

function diffTable(live, update) {
  const rows = FIELDS.filter((field) => field in update).map((field) =>
    h('tr', { dataset: { field } }, h('th', { scope: 'row', text: t('field.' + field) }), h('td', {}, h('del', { text: show(live[field]) })), h('td', {}, h('ins', { text: show(update[field]) }))),
  );
  return h(
    'table',
    { class: 'diff' },
    h('caption', { class: 'visually-hidden', text: t('review.diffCaption', { name: live.name }) }),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: t('review.field') }), h('th', { scope: 'col', text: t('review.now') }), h('th', { scope: 'col', text: t('review.proposed') }))),
    h('tbody', {}, rows),
  );
}

/** The fields a new plugin brings, for the reviewer to read before approving. */
function summaryTable(plugin) {
  const rows = FIELDS.filter((field) => field !== 'name').map((field) => h('tr', {}, h('th', { scope: 'row', text: t('field.' + field) }), h('td', { text: show(plugin[field]) })));
  return h('table', { class: 'diff' }, h('caption', { class: 'visually-hidden', text: plugin.name }), h('tbody', {}, rows));
}

function item(plugin, kind) {
  const n = plugin.id;
  const reasonId = 'reason-' + n;
  const reason = h('input', { id: reasonId, maxLength: 1000, placeholder: t('review.reasonPlaceholder') });
  const message = h('p', { class: 'status', role: 'status' });
  const node = h('li', { class: 'row-item', dataset: { id: plugin.id, kind } });
  const decide = (action) => async () => {
    try {
      await api(`/apps/api/plugins/${encodeURIComponent(plugin.id)}/review`, { method: 'POST', body: action === 'reject' && reason.value.trim() ? { action, reason: reason.value.trim() } : { action } });
      node.replaceChildren(h('p', { class: 'done', text: t(action === 'approve' ? 'review.approved' : 'review.rejected', { name: plugin.name }) }));
    } catch (error) {
      setStatus(message, 'error', errorText(error));
    }
  };
  const update = plugin.pendingUpdate;
  node.append(
    h(
      'div',
      { class: 'row-head' },
      pluginIcon(plugin),
      h('div', { class: 'grow' }, h('a', { href: pluginPath(plugin.id), text: plugin.name }), h('div', { class: 'muted', text: t('review.by', { user: plugin.submitter, date: formatDate(update?.submittedAt ?? plugin.createdAt) }) })),
      h('span', { class: 'badge pending', text: kind === 'update' ? t('review.kindUpdate') : t('review.kindNew') }),
    ),
    kind === 'update' ? diffTable(plugin, update) : summaryTable(plugin),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'primary approve', text: t('review.approve'), onclick: decide('approve') }),
      h('div', { class: 'reason' }, h('label', { htmlFor: reasonId, class: 'visually-hidden', text: t('review.reason') }), reason, h('button', { type: 'button', class: 'danger reject', text: t('review.reject'), onclick: decide('reject') })),
    ),
    message,
  );
  return node;
}

/** For an update, the live long description is only in the detail. */
async function withDetail(plugin) {
  if (!plugin.pendingUpdate || !('longDescription' in plugin.pendingUpdate)) return plugin;
  const { plugin: full } = await api(pluginPathApi(plugin.id));
  return full;
}
const pluginPathApi = (id) => '/apps/api/plugins/' + encodeURIComponent(id);

async function load() {
  const { user } = await sessionReady;
  if (!user?.admin) {
    setStatus(status, 'error', user ? t('review.adminsOnly') : t('form.loginFirst'));
    if (!user) status.append(' ', h('a', { href: loginHref(), text: t('nav.login') }));
    return;
  }
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
    setStatus(status, 'error', errorText(error));
  }
}

// Featured: find approved plugins and switch them on or off.
function featureRow(plugin) {
  const box = h('input', { type: 'checkbox', id: 'feat-' + plugin.id, checked: plugin.featured });
  const message = h('span', { class: 'status', role: 'status' });
  box.addEventListener('change', async () => {
    try {
      await api(pluginPathApi(plugin.id), { method: 'PATCH', body: { featured: box.checked } });
      setStatus(message, 'done', box.checked ? t('review.featuredOn') : t('review.featuredOff'));
    } catch (error) {
      box.checked = !box.checked;
      setStatus(message, 'error', errorText(error));
    }
  });
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
$('feature-form').addEventListener('submit', (event) => {
  event.preventDefault();
  findFeatured($('feature-q').value.trim());
});

load().then(() => sessionReady.then(({ user }) => user?.admin && findFeatured('')));
