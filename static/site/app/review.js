// @ts-check
// The review queue (administrators), in tabs that are links (each its own address):
// new plugins, updates, reports, each with its count (GET /apps/api/review/counts,
// read again after every decision), and the featured switch. A queue tab is a page
// of compact rows, oldest first (limit/offset): icon, name, author, kind, age and
// warning count; the arrow keys move between rows and Enter opens one into its full
// review, read from the plugin's detail: the fields (an update as a field-by-field
// diff, pictures as thumbnails, the long description as Markdown), the hosted ZIP
// (manifest, permissions as words with what changed since the live version, every
// check, files), then approve, reject with a reason, or for an update, apart,
// unlist. Each review names the revision shown, so a plugin changed since is
// refused (409), not approved unseen.
import { sessionReady } from './header.js';
import { $, api, changelog, enc, FIELDS, errorText, failed, formatDate, formatSize, h, hash, imageUrl, lang, loginFirst, markdown, permissionItem, pluginIcon, pluginPath, rowHead, setStatus, showList, t } from './lib.js';

const status = $('status');
const PAGE = 20;
const tab = new URLSearchParams(location.search).get('tab') || 'new';
const pluginApi = (id) => '/apps/api/plugins/' + enc(id);
const badge = (text, className = 'pending') => h('span.badge.' + className, { text });

/** The label of a field without the form's hints ("Homepage", not "Homepage (https)"). */
const label = (field) => (t('review.label.' + field) == 'review.label.' + field ? t('field.' + field) : t('review.label.' + field));

/** A picture as a thumbnail linking to itself (its WebP preview when it has one). */
function thumb(shot, n) {
  const url = imageUrl(shot?.url ?? shot);
  if (!url) return h('span', { text: String(shot?.url ?? shot) });
  const img = h('img.shot-thumb', { src: imageUrl(shot?.webpUrl) || url, alt: t('review.shotAlt', { n }), loading: 'lazy', width: 120, height: 75 });
  return h('a', { href: url, target: '_blank', rel: 'noopener' }, img);
}

/** A field's value as the reviewer should see it: pictures as thumbnails, Markdown rendered, lists one per line. */
function view(field, record, tree) {
  const value = record[field];
  if (value == null || value === '' || value?.length === 0) return '—';
  if (field == 'icon') return pluginIcon({ name: record.name, icon: value });
  if (field == 'screenshots') return h('span.thumbs', {}, value.map((shot, i) => thumb(shot, i + 1)));
  if (field == 'longDescription') return h('div.prose', {}, tree?.length ? markdown(tree) : value);
  return Array.isArray(value) ? value.join('\n') : String(value);
}

/**
 * An update as a field-by-field diff (now / proposed); a new plugin as the fields
 * it brings, for the reviewer to read before approving.
 */
function table(plugin, update) {
  const th = (text, scope = 'row') => h('th', { scope, text });
  const rows = FIELDS.filter((field) => (update ? field in update : field !== 'name')).map((field) =>
    h('tr', { dataset: { field } }, th(label(field)), update
      ? [h('td', {}, h('del', {}, view(field, plugin, plugin.longDescriptionTree))), h('td', {}, h('ins', {}, view(field, { ...plugin, ...update }, update.longDescriptionTree)))]
      : h('td', {}, view(field, plugin, plugin.longDescriptionTree))),
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

/** How long ago, in the page's language ("3 days ago"), in a <time> with the date as its title. */
function age(iso) {
  const seconds = (Date.parse(iso) - Date.now()) / 1000;
  /** @type {[number, Intl.RelativeTimeFormatUnit]} */
  const [n, unit] = seconds > -3600 ? [seconds / 60, 'minute'] : seconds > -86400 ? [seconds / 3600, 'hour'] : [seconds / 86400, 'day'];
  return h('time', { dateTime: iso, title: formatDate(iso, true), text: new Intl.RelativeTimeFormat(lang, { numeric: 'auto' }).format(Math.round(n), unit) });
}

/** The warnings of a queued plugin: its outside links the launcher refuses, and the checks of the version (or outside download) under review. */
const warningCount = (plugin) => (plugin.warnings?.length || 0) + ((plugin.pendingUpdate ? plugin.pendingUpdate.package : plugin.package)?.warningCount || 0)
  + (plugin.packageCheck?.checks || []).filter((check) => check.level == 'warn').length;

/** A queue row: the compact line that opens into the full review (read when first opened). */
function row(plugin) {
  const kind = plugin.pendingUpdate ? 'update' : 'new';
  const warnings = warningCount(plugin);
  const panel = h('div.review', { id: 'review-' + plugin.id, hidden: true });
  const open = h(
    'button.row-open',
    { type: 'button', 'aria-expanded': 'false', 'aria-controls': panel.id },
    pluginIcon(plugin, 'icon thumb'),
    h('span.grow', {}, h('strong', { text: plugin.name }), h('span.muted', { text: ' ' + t('review.author', { author: plugin.author || plugin.submitter }) })),
    badge(t(kind == 'update' ? 'review.kindUpdate' : 'review.kindNew'), 'kind'),
    age(plugin.pendingUpdate?.submittedAt ?? plugin.updatedAt),
    h('span.warnings', { dataset: { n: warnings }, text: t(warnings ? 'review.warnings' : 'review.noWarnings', { n: warnings }) }),
  );
  const node = h('li.row-item', { dataset: { id: plugin.id, kind } }, open, panel);
  open.onclick = () => {
    const shown = open.getAttribute('aria-expanded') == 'true';
    open.setAttribute('aria-expanded', String(!shown));
    panel.hidden = shown;
    if (!shown && !panel.firstChild) fill(panel, plugin.id, kind, node);
  };
  return node;
}

/** The full review of a queued plugin, from its detail (the files, checks and manifest the queue's records leave out). */
async function fill(panel, id, kind, node) {
  panel.replaceChildren(h('p.status', { role: 'status', text: t('store.loading') }));
  try {
    const { plugin } = await api(pluginApi(id));
    panel.replaceChildren(...review(plugin, kind == 'update' ? plugin.pendingUpdate : null, node).flat().filter(Boolean));
  } catch (error) {
    failed(panel.firstChild, error);
  }
}

function review(plugin, update, node) {
  // Reviewed by someone else since the queue was read.
  if (node.dataset.kind == 'update' && !update) return [h('p.status', { text: t('review.changed', plugin) })];
  const pkg = update ? update.package : plugin.package;
  return [
    h('p.muted', {}, h('a', { href: pluginPath(plugin.id), text: t('review.page', plugin) }), ' · ', t('review.by', { user: plugin.submitter, date: formatDate(update?.submittedAt ?? plugin.updatedAt) })),
    // Outside links launchers with default settings refuse (the record's `warnings`).
    plugin.warnings?.map((warning) => h('p.pending', { text: t('review.hostWarning', warning) })),
    // The outside link's check (packageCheck): what approving it will do, plainly.
    plugin.packageCheck && h('section.download-check', { dataset: { status: plugin.packageCheck.status } },
      h('p.check', { text: t('review.check.' + plugin.packageCheck.status, { reason: '', ...plugin.packageCheck }) }),
      // What the fetched file says of itself, as a hosted ZIP's.
      plugin.packageCheck.manifest && manifestList(plugin.packageCheck.manifest), checksList(plugin.packageCheck.checks)),
    table(plugin, update),
    permissionsView(plugin, update, pkg),
    packageView(pkg),
    // An update: approve or reject it, or, apart, unlist the plugin.
    actions(update ? 'decide-update' : 'decide', plugin.id, async (action, reason) => {
      try {
        await api(`${pluginApi(plugin.id)}/review`, { action, reason: action == 'approve' ? undefined : reason, revision: plugin.revision });
      } catch (error) {
        if (error.field == 'revision') error.message = t('review.changed', plugin);
        if (error.field == 'reason') error.message = t('review.unlistReason');
        throw error;
      }
      node.lastChild.replaceChildren(h('p.done', { text: t(DONE[action], plugin) }));
      node.dataset.state = 'done';
      decided++;
      readCounts();
      next(node)?.focus();
    }),
  ];
}

/**
 * The permissions the launcher would grant, as words, high-risk ones marked, each
 * new one (and each dropped one) marked against the live version: the hosted
 * package's when it has them, else the plugin's field.
 */
function permissionsView(plugin, update, pkg) {
  const ids = (list) => (list || []).map((p) => p.id ?? p);
  const live = ids(plugin.package?.permissions?.length ? plugin.package.permissions : plugin.permissions);
  const proposed = pkg?.permissions?.length ? pkg.permissions : update?.permissions ?? plugin.permissions ?? [];
  const items = [
    ...proposed.map((p) => permissionItem(p, update && !live.includes(p.id ?? p) ? 'added' : undefined)),
    ...(update ? live.filter((id) => !ids(proposed).includes(id)).map((id) => permissionItem(id, 'removed')) : []),
  ];
  return h('section.perms', {}, h('h3', { text: t('field.permissions') }), items.length ? h('ul.permissions', {}, items) : h('p.muted', { text: t('plugin.noPermissions') }));
}

/** Up to this many of a package's files are listed (the API sends the first 1,000). */
const MAX_FILES = 1000;

/** A list of files in a box of its own that scrolls (and can be scrolled from the keyboard). */
const fileList = (label, items) => h('ul.files', { tabIndex: 0, 'aria-label': label }, items);

/** What the launcher runs of a package ('python+qml'...), in words. */
const entryWords = (kind) => kind.split('+').map((part) => t('review.entry.' + part)).join(' · ');

/**
 * A hosted ZIP as the reviewer must see it before approving: its SHA-256, size,
 * changelog, its manifest (plugin.json as the launcher reads it) and what it runs,
 * every check (warn or block, message, file), and its files, for an update with
 * the difference against the live files (added, removed, changed by CRC), behind
 * a button (up to 1,000 names).
 */
function packageView(pkg) {
  if (!pkg) return null;
  const { diff, files, manifest, checks } = pkg;
  const changes = diff && ['added', 'removed', 'changed'].flatMap((kind) => diff[kind].map((file) => h('li', { dataset: { change: kind }, text: t('review.' + kind + 'File', file) })));
  const show = () => shown.replaceWith(
    changes?.length > 0 ? fileList(t('review.diffLabel'), changes) : '',
    fileList(t('review.filesLabel'), files.slice(0, MAX_FILES).map((file) => h('li', { text: `${file.name} (${formatSize(file.size)})` }))),
  );
  const shown = files ? h('button.show-files', { type: 'button', text: t('review.showFiles'), onclick: show }) : '';
  return h(
    'section.package',
    { dataset: { version: pkg.version } },
    h('h3', { text: t('review.package', pkg) }),
    h('p', {}, t('versions.size', { size: formatSize(pkg.size) }), ' · SHA-256 ', hash(pkg.sha256)),
    changelog(pkg),
    diff && h('h4', { text: t('review.fileDiff', { added: diff.added.length, removed: diff.removed.length, changed: diff.changed.length }) }),
    h('h4', { text: t('review.manifest') }),
    manifest ? manifestList(manifest, pkg.entryKind) : h('p.muted', { text: t('review.noManifest') }),
    checksList(checks),
    h('h4', { text: t('review.files', { n: pkg.entryCount }) }),
    shown,
  );
}

/** A manifest as the launcher reads it (its permissions apart), and what it runs. */
const manifestList = (manifest, entryKind) =>
  h('dl.manifest', {}, Object.entries(manifest).filter(([key]) => key != 'permissions').flatMap(([key, value]) => [h('dt', {}, h('code', { text: key })), h('dd', { text: value == null || value === '' ? '—' : typeof value == 'object' ? JSON.stringify(value) : String(value) })]),
    entryKind && [h('dt', { text: t('review.runs') }), h('dd', { text: entryWords(entryKind) })]);

/** Every check (warn or block, message, file), under a heading with their number. */
const checksList = (checks) => checks && [
  h('h4', { text: t('review.checks', { n: checks.length }) }),
  checks.length ? h('ul.checks', {}, checks.map((check) => h('li', { dataset: { level: check.level, code: check.code } },
    badge(t('review.level.' + check.level), check.level == 'block' ? 'rejected' : 'pending'), ' ', check.message, check.file && [' ', h('code', { text: check.file })]))) : h('p.muted', { text: t('review.noChecks') }),
];

// Tabs: the queue of new plugins (default) or of updates, the reports, the featured switch.
$('tab-' + (['updates', 'reports', 'featured'].includes(tab) ? tab : 'new')).setAttribute('aria-current', 'page');

/** Each tab's count, read again after every decision. */
let counts = {};
async function readCounts() {
  try {
    counts = await api('/apps/api/review/counts');
    for (const kind of ['pending', 'updates', 'reports']) $('count-' + kind).textContent = ' ' + counts[kind];
    if (shownCount != null) said();
  } catch {
    // The counts only help: the tabs still work without them.
  }
}

// A page of the queue: where it starts, and how many decided on it (they left the
// queue, so the next page starts that many earlier).
let offset = Math.max(0, (Number(new URLSearchParams(location.search).get('page')) - 1 || 0) * PAGE);
let decided = 0;
/** Rows on the page, once read. */
let shownCount;

/** The status line and pager of a queue page: "21–40 of 60, oldest first." */
function said() {
  const total = counts[tab == 'updates' ? 'updates' : 'pending'] ?? 0;
  const range = shownCount ? t('review.range', { from: offset + 1, to: offset + shownCount }) : '';
  setStatus(status, total ? 'done' : 'empty', total ? t('review.count', { total }) + ' ' + range : t('review.empty'));
  // Past the rows shown, less those decided (they left the queue), is there more?
  const more = offset + shownCount - decided < total;
  $('pager').hidden = offset == 0 && !more;
  $('prev').disabled = offset == 0;
  $('next').disabled = !more;
  $('page-info').textContent = range;
}

async function readQueue() {
  const path = tab == 'updates' ? 'update=pending' : 'status=pending&sort=oldest';
  const read = async () => {
    const answer = await api(`/apps/api/plugins?scope=admin&${path}&include=review&limit=${PAGE}&offset=${offset}`);
    counts[tab == 'updates' ? 'updates' : 'pending'] = answer.total;
    shownCount = answer.plugins.length;
    decided = 0;
    return [answer.plugins, ''];
  };
  if (await showList(status, $('queue'), read, row, 'review.empty')) said();
}

/** The button of the row after `node` (none after the last). */
const next = (node) => node.nextElementSibling?.querySelector('.row-open');
$('queue').onkeydown = (event) => {
  const item = event.target.closest?.('.row-open')?.parentElement;
  if (!item) return;
  const rows = [...$('queue').querySelectorAll('.row-open')];
  const to = { ArrowDown: next(item), j: next(item), ArrowUp: item.previousElementSibling?.querySelector('.row-open'), k: item.previousElementSibling?.querySelector('.row-open'), Home: rows[0], End: rows.at(-1) }[event.key];
  if (!to) return;
  event.preventDefault();
  to.focus();
};
const turn = (by) => () => {
  offset = Math.max(0, offset + by - (by > 0 ? decided : 0));
  history.replaceState(null, '', `?tab=${tab}&page=${Math.floor(offset / PAGE) + 1}`);
  readQueue().then(() => $('queue').querySelector('.row-open')?.focus());
};
$('prev').onclick = turn(-PAGE);
$('next').onclick = turn(PAGE);

async function load() {
  const { user } = await sessionReady;
  if (!user?.admin) return user ? setStatus(status, 'error', t('review.adminsOnly')) : loginFirst(status);
  readCounts();
  if (tab == 'reports') return ($('reports').hidden = false), loadReports();
  if (tab == 'featured') return ($('featured').hidden = false), findFeatured('');
  $('queue-tab').hidden = false;
  readQueue();
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
// unlist the plugin, with a reason; the list and the counts are read again after each.
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
    api(`/apps/api/reports/${id}/resolve`, { action, reason }).then(() => (readCounts(), loadReports(t('reports.done') + ' '))),
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
