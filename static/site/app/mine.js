// My plugins: every plugin the user submitted, its status (and the reason of a
// rejection), an update waiting for review beside the live version, and edit.
import { sessionReady } from './header.js';
import { $, api, errorText, formatDate, h, loginHref, pluginIcon, pluginPath, setStatus, t } from './lib.js';

const status = $('status');

export function statusBadge(plugin) {
  return h('span', { class: 'badge ' + plugin.status, text: t('status.' + plugin.status) });
}

function row(plugin) {
  const update = plugin.pendingUpdate;
  const live = h('div', { class: 'grow' }, h('a', { href: pluginPath(plugin.id), text: plugin.name }), h('div', { class: 'muted', text: t('mine.live', { version: plugin.version, date: formatDate(plugin.updatedAt) }) }));
  const edit = h('a', { class: 'button secondary', href: '/apps/edit/' + encodeURIComponent(plugin.id), text: t('mine.edit'), 'aria-label': t('mine.editNamed', { name: plugin.name }) });
  const reason = plugin.status === 'rejected' && plugin.review?.reason;
  // The update waits beside the live version, which stays until it is approved.
  const changed = update && Object.keys(update).filter((key) => key !== 'submittedAt').map((key) => t('field.' + key)).join(', ');
  const detail = update && t('mine.updateDetail', { version: update.version ?? plugin.version, fields: changed, date: formatDate(update.submittedAt) });
  return h(
    'li',
    { class: 'row-item', dataset: { id: plugin.id, status: plugin.status } },
    h('div', { class: 'row-head' }, pluginIcon(plugin), live, statusBadge(plugin), edit),
    reason ? h('p', { class: 'error reason-text', text: t('mine.rejectedBecause', { reason }) }) : null,
    plugin.status === 'pending' ? h('p', { class: 'muted', text: t('mine.waiting') }) : null,
    update ? h('p', { class: 'pending-update' }, h('span', { class: 'badge pending', text: t('mine.updatePending') }), ' ', detail) : null,
  );
}

async function load() {
  const { user } = await sessionReady;
  if (!user) {
    setStatus(status, 'done', t('form.loginFirst'));
    return status.append(' ', h('a', { href: loginHref(), text: t('nav.login') }));
  }
  setStatus(status, 'loading', t('store.loading'));
  try {
    const { plugins, total } = await api('/apps/api/plugins?scope=mine&limit=500');
    $('list').replaceChildren(...plugins.map(row));
    const saved = new URLSearchParams(location.search).get('saved');
    if (plugins.length === 0) setStatus(status, 'empty', t('mine.empty'));
    else setStatus(status, 'done', (saved ? t('mine.saved') + ' ' : '') + t('mine.count', { total }));
  } catch (error) {
    setStatus(status, 'error', errorText(error));
  }
}

load();
