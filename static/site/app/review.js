// @ts-check
// The review queue (administrators): new plugins and updates waiting for review,
// each update as a field-by-field diff; approve, reject with a reason, unlist the
// plugin of an update (apart); each review names the revision shown; a ZIP the
// store hosts shown with its hash, size, changelog, files (read from the detail when
// opened) and, for an update, the files' difference against the live version; the
// featured switch of approved plugins; and, on its own tab, the open reports.
import { sessionReady } from './header.js';
import { $, api, changelog, enc, FIELDS, errorText, failed, formatDate, formatSize, h, hash, loginFirst, pluginIcon, rowHead, setStatus, showList, t } from './lib.js';

const status = $('status');

/** A field's value as text: lists one per line, screenshots by their links. */
const show = (value) => (Array.isArray(value) ? value.map((item) => item?.url ?? item).join('\n') : value ?? '') || '—';

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
    'table.diff',
    {},
    h('caption.visually-hidden', { text: update ? t('review.diffCaption', { name: plugin.name }) : plugin.name }),
    update && h('thead', {}, h('tr', {}, ['review.field', 'review.now', 'review.proposed'].map((key) => th(t(key), 'col')))),
    h('tbody', {}, rows),
  );
}

/**
 * The actions of an entry, from `template`: buttons with a data-action, a reason
 * with its (visually hidden) label, ids from `key`, and a status line; a click
 * runs `act(action, reason)`, its failure said in the status line.
 */
function actions(template, key, act) {
  const node = $(template).content.firstElementChild.cloneNode(true);
  const input = node.querySelector('input');
  node.querySelector('label').htmlFor = input.id = 'reason-' + key;
  for (const button of node.querySelectorAll('[data-action]')) {
    button.onclick = () => act(button.dataset.action, input.value.trim() || undefined).catch((error) => failed(node.lastChild, error));
  }
  return node;
}

const DONE = { approve: 'review.approved', reject: 'review.rejected', unlist: 'review.unlisted' };

function item([plugin, kind]) {
  const update = plugin.pendingUpdate;
  const node = h(
    'li.row-item',
    { dataset: { id: plugin.id, kind } },
    rowHead(plugin, t('review.by', { user: plugin.submitter, date: formatDate(update?.submittedAt ?? plugin.createdAt) }), badge(t(kind === 'update' ? 'review.kindUpdate' : 'review.kindNew'))),
    table(plugin, update),
    // Outside links launchers with default settings refuse (the record's `warnings`).
    plugin.warnings?.map((warning) => h('p.pending', { text: t('review.hostWarning', warning) })),
    packageView(update ? update.package : plugin.package, plugin.id, Boolean(update)),
    // An update: approve or reject it, or, apart, unlist the plugin. The review names
    // the revision shown, so a plugin changed since is refused (409), not approved unseen.
    actions(update ? 'decide-update' : 'decide', plugin.id, async (action, reason) => {
      try {
        await api(`${pluginApi(plugin.id)}/review`, { action, reason: action == 'approve' ? undefined : reason, revision: plugin.revision });
      } catch (error) {
        if (error.field == 'revision') error.message = t('review.changed', plugin);
        if (error.field == 'reason') error.message = t('review.unlistReason');
        throw error;
      }
      node.replaceChildren(h('p.done', { text: t(DONE[action], plugin) }));
    }),
  );
  return node;
}

/** Up to this many of a package's files are listed (the API sends the first 1,000). */
const MAX_FILES = 1000;

/** A list of files in a box of its own that scrolls (and can be scrolled from the keyboard). */
const fileList = (label, items) => h('ul.files', { tabIndex: 0, 'aria-label': label }, items);

/**
 * A hosted ZIP as the reviewer must see it before approving: its SHA-256, size,
 * changelog and files, and for an update the difference against the live files
 * (added, removed, changed by CRC). The queue's records carry no file lists (up to
 * 1,000 names a ZIP: a page of 100 would weigh hundreds of MB), only their counts;
 * the lists come from the plugin's detail when the reviewer opens them.
 */
function packageView(pkg, id, isUpdate) {
  if (!pkg) return null;
  const { diff, files } = pkg;
  const changes = diff && ['added', 'removed', 'changed'].flatMap((kind) => diff[kind].map((file) => h('li', { dataset: { change: kind }, text: t('review.' + kind + 'File', file) })));
  // Another ZIP since the queue was read: said so, not its files shown.
  const open = () => api(pluginApi(id)).then(({ plugin }) => {
    const full = isUpdate ? plugin.pendingUpdate?.package : plugin.package;
    if (full?.sha256 != pkg.sha256) throw new Error(t('review.changed', plugin));
    node.replaceWith(packageView(full, id, isUpdate));
  }).catch((error) => failed(node.lastChild, error));
  const node = h(
    'section.package',
    { dataset: { version: pkg.version } },
    h('h3', { text: t('review.package', pkg) }),
    h('p', {}, t('versions.size', { size: formatSize(pkg.size) }), ' · SHA-256 ', hash(pkg.sha256)),
    changelog(pkg),
    pkg.diffCounts && h('h4', { text: t('review.fileDiff', pkg.diffCounts) }),
    // The checks' warnings, counted (the queue carries the count; the detail every check).
    pkg.warningCount != null && h(pkg.warningCount ? 'p.pending' : 'p', { text: t('review.warnings', { n: pkg.warningCount }) }),
    changes?.length > 0 && fileList(t('review.diffLabel'), changes),
    h('h4', { text: t('review.files', { n: pkg.entryCount }) }),
    files ? fileList(t('review.filesLabel'), files.slice(0, MAX_FILES).map((file) => h('li', { text: `${file.name} (${formatSize(file.size)})` })))
      : [h('button.show-files', { text: t('review.showFiles'), onclick: open }), h('span.status', { role: 'status' })],
  );
  return node;
}
const pluginApi = (id) => '/apps/api/plugins/' + enc(id);
const badge = (text) => h('span.badge.pending', { text });

// Two tabs, as links (each its own address): the queue, and the reports.
const onReports = location.search.includes('tab=reports');
$(onReports ? 'tab-reports' : 'tab-queue').setAttribute('aria-current', 'page');
$('queue-tab').hidden = onReports;
$('reports').hidden = !onReports;

async function load() {
  const { user } = await sessionReady;
  if (!user?.admin) return user ? setStatus(status, 'error', t('review.adminsOnly')) : loginFirst(status);
  if (onReports) return loadReports();
  findFeatured('');
  const read = async () => {
    // include=review: each plugin with what its detail adds (long description, hosted packages without their file lists), in the one answer.
    const [fresh, updates] = await Promise.all([
      api('/apps/api/plugins?scope=admin&status=pending&include=review&limit=100'),
      api('/apps/api/plugins?scope=admin&update=pending&include=review&limit=100'),
    ]);
    return [[...fresh.plugins.map((plugin) => [plugin, 'new']), ...updates.plugins.map((plugin) => [plugin, 'update'])], t('review.count', { total: fresh.total + updates.total })];
  };
  showList(status, $('queue'), read, item, 'review.empty');
}

// Featured: find approved plugins and switch them on or off.
function featureRow(plugin) {
  const box = h('input', { type: 'checkbox', id: 'feat-' + plugin.id, checked: plugin.featured });
  const message = h('span.status', { role: 'status' });
  box.onchange = () =>
    api(pluginApi(plugin.id), { featured: box.checked }, 'PATCH').then(
      () => setStatus(message, 'done', t(box.checked ? 'review.featuredOn' : 'review.featuredOff')),
      (error) => {
        box.checked = !box.checked;
        failed(message, error);
      },
    );
  return h('li.row-item', { dataset: { id: plugin.id } }, h('div.row-head', {}, pluginIcon(plugin), h('label.grow', { htmlFor: 'feat-' + plugin.id }, box, ' ', t('review.featuredLabel', { name: plugin.name })), message));
}

async function findFeatured(q) {
  try {
    const { plugins } = await api('/apps/api/plugins?public=1&limit=20&' + (q ? 'q=' + enc(q) : 'featured=1'));
    $('feature-list').replaceChildren(...plugins.map(featureRow));
  } catch (error) {
    $('feature-list').replaceChildren(h('li.error', { text: errorText(error) }));
  }
}
$('feature-form').onsubmit = (event) => {
  event.preventDefault();
  findFeatured($('feature-q').value.trim());
};

// Reports, grouped by target (the API sends each target's reports together, the
// first reported first): who reported it and why; dismiss, hide the rating, or
// unlist the plugin, with a reason; the list is read again after each.
function loadReports(done = '') {
  const read = async () => {
    const { reports, total } = await api('/apps/api/reports?status=open&limit=200');
    const groups = new Map();
    for (const report of reports) {
      const key = JSON.stringify(report.target);
      groups.set(key, [...(groups.get(key) || []), report]);
    }
    return [[...groups], done + t('reports.total', { n: total })];
  };
  showList(status, $('reports'), read, reportItem, 'reports.empty');
}

function reportItem([key, reports]) {
  const { id, target, targetReports } = reports[0];
  const resolve = actions('resolve', 'report-' + id, (action, reason) =>
    api(`/apps/api/reports/${id}/resolve`, { action, reason }).then(() => loadReports(t('reports.done') + ' ')),
  );
  // Only a rating can be hidden.
  resolve.querySelector('[data-action="hide-rating"]').hidden = !target.user;
  return h(
    'li.row-item',
    { dataset: { target: key } },
    rowHead({ id: target.plugin }, t(target.user ? 'reports.rating' : 'reports.plugin', target), badge(t('reports.targetCount', { n: targetReports }))),
    h('ul', {}, reports.map((report) => h('li', {}, t('reports.by', { reason: t('report.reason.' + report.reason), user: report.reporter, date: formatDate(report.createdAt) }), report.note && h('p.prose', { text: report.note })))),
    resolve,
  );
}

load();
