// My plugins: every plugin the user submitted, its status (and the reason of a
// rejection), an update waiting for review beside the live version, and edit.
import { sessionReady } from './header.js';
import { $, api, enc, failed, formatDate, h, loginFirst, pluginIcon, pluginPath, setStatus, t } from './lib.js';

const status = $('status');

function row(plugin) {
  const update = plugin.pendingUpdate;
  const live = h('div', { class: 'grow' }, h('a', { href: pluginPath(plugin.id), text: plugin.name }), h('div', { class: 'muted', text: t('mine.live', { version: plugin.version, date: formatDate(plugin.updatedAt) }) }));
  const edit = h('a', { class: 'button secondary', href: '/apps/edit/' + enc(plugin.id), text: t('mine.edit'), 'aria-label': t('mine.editNamed', { name: plugin.name }) });
  const reason = plugin.status === 'rejected' && plugin.review?.reason;
  // The update waits beside the live version, which stays until it is approved.
  const fields = update && Object.keys(update).filter((key) => key !== 'submittedAt').map((key) => t('field.' + key)).join(', ');
  return h(
    'li',
    { class: 'row-item', dataset: { id: plugin.id, status: plugin.status } },
    h('div', { class: 'row-head' }, pluginIcon(plugin), live, h('span', { class: 'badge ' + plugin.status, text: t('status.' + plugin.status) }), edit),
    reason && h('p', { class: 'error reason-text', text: t('mine.rejectedBecause', { reason }) }),
    plugin.status === 'pending' && h('p', { class: 'muted', text: t('mine.waiting') }),
    update && h('p', { class: 'pending-update' }, h('span', { class: 'badge pending', text: t('mine.updatePending') }), ' ', t('mine.updateDetail', { version: update.version ?? plugin.version, fields, date: formatDate(update.submittedAt) })),
  );
}

async function load() {
  const { user } = await sessionReady;
  if (!user) return loginFirst(status);
  setStatus(status, 'loading', t('store.loading'));
  try {
    const { plugins, total } = await api('/apps/api/plugins?scope=mine&limit=500');
    $('list').replaceChildren(...plugins.map(row));
    const saved = new URLSearchParams(location.search).get('saved');
    if (!plugins.length) setStatus(status, 'empty', t('mine.empty'));
    else setStatus(status, 'done', (saved ? t('mine.saved') + ' ' : '') + t('mine.count', { total }));
  } catch (error) {
    failed(status, error);
  }
}

load();
