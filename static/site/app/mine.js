// @ts-check
// My plugins: every plugin the user submitted, its status (and the reason of a
// rejection), a version waiting for review (its number and state), an update
// waiting for review beside the live version, its installs and rating, installs
// over the last 30 days as a captioned chart, and edit.
import { sessionReady } from './header.js';
import { $, api, barChart, enc, formatDate, formatNumber, h, loginFirst, rowHead, showList, stars, t } from './lib.js';

const status = $('status');

/** Each plugin's sparkline, filled by one request per 100 plugins (GET /apps/api/stats/installs). */
const sparks = new Map();
function loadSparks(ids) {
  for (const id of ids) sparks.set(id, h('span.spark', {}));
  for (let i = 0; i < ids.length; i += 100) {
    api('/apps/api/stats/installs?days=30&ids=' + ids.slice(i, i + 100).join()).then(({ plugins }) => {
      for (const { id, days, total } of plugins) {
        // Its label is also shown under it (issue 34: a chart nobody could read).
        const label = t('mine.spark', { total });
        sparks.get(id).replaceWith(h('figure.spark', { role: 'img', 'aria-label': label }, barChart(days.map((day) => day.installs)), h('figcaption.muted', { text: label })));
      }
    }, () => {});
  }
}

function row(plugin) {
  const update = plugin.pendingUpdate;
  const edit = h('a.button.secondary', { href: '/apps/edit/' + enc(plugin.id), text: t('mine.edit'), 'aria-label': t('mine.editNamed', { name: plugin.name }) });
  const reason = plugin.status === 'rejected' && plugin.review?.reason;
  // The update waits beside the live version, which stays until it is approved. A
  // plugin not yet approved says it is pending once: its badge, and what happens next.
  const pending = update?.version;
  // A new version is said once (the line above); the update's line names the other changes, if any.
  const others = update ? Object.keys(update).filter((key) => key !== 'submittedAt' && !(update.version && /^(version|download|sha256)$/.test(key))) : [];
  const fields = others.map((key) => t('field.' + key)).join(', ');
  const head = plugin.status === 'approved' ? 'mine.live' : 'mine.notLive';
  return h(
    'li.row-item',
    { dataset: { id: plugin.id, status: plugin.status } },
    rowHead(plugin, t(head, { version: plugin.version, date: formatDate(plugin.updatedAt) }), sparks.get(plugin.id), h('span.badge.' + plugin.status, { text: t('status.' + plugin.status) }), edit),
    h('p.card-stats', {}, stars(plugin.ratingAvg || 0, plugin.ratingCount || 0), t('card.installs', { n: formatNumber(plugin.installCount || 0) })),
    reason && h('p.error.reason-text', { text: t('mine.rejectedBecause', { reason }) }),
    pending && h('p.pending-version', { dataset: { version: pending } }, h('span.badge.pending', { text: t('status.pending') }), ' ', t('mine.pendingVersion', { version: pending })),
    plugin.status === 'pending' && h('p.muted', { text: t('mine.waiting') }),
    others.length > 0 && h('p.pending-update', {}, h('span.badge.pending', { text: t('mine.updatePending') }), ' ', t('mine.updateDetail', { version: update.version ?? plugin.version, fields, date: formatDate(update.submittedAt) })),
  );
}

async function load() {
  const { user } = await sessionReady;
  if (!user) return loginFirst(status);
  showList(
    status,
    $('list'),
    async () => {
      const { plugins, total } = await api('/apps/api/plugins?scope=mine&limit=500');
      loadSparks(plugins.map((plugin) => plugin.id));
      return [plugins, (location.search.includes('saved=') ? t('mine.saved') + ' ' : '') + t('mine.count', { n: total })];
    },
    row,
    'mine.empty',
  );
}

load();
