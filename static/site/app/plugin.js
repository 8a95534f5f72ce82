// @ts-check
// A plugin's page, at /apps/plugin/<id> (the Bloret launcher links there): what it
// is, what it may do (permissions, before the install button), screenshots, the
// install button, the ZIP with its SHA-256 and size, its versions (newest first),
// ratings with replies, related plugins.
import { sessionReady } from './header.js';
import { $, api, barChart, button, changelog, copy, counted, enc, errorText, failed, onSubmit, formatNumber, formatSize, h, hash, httpsUrl, imageUrl, loginHref, markdown, permissionItem, pluginCard, pluginIcon, richText, setStatus, stars, t, text, twoRows, when, who } from './lib.js';

const id = decodeURIComponent(location.pathname.split('/')[3] || '');
const base = '/apps/api/plugins/' + enc(id);
let plugin;
let me;
let ratingsOffset = 0;

async function load() {
  const status = $('status');
  setStatus(status, 'loading', t('plugin.loading'));
  let answer;
  try {
    [answer, { user: me }] = await Promise.all([api(base + '?include=related'), sessionReady]);
  } catch (error) {
    const missing = error.status === 404;
    setStatus(status, 'error', missing ? t('plugin.notFound') : t('plugin.error', { reason: errorText(error) }));
    return missing && status.append(' ', h('a', { href: '/apps/', text: t('plugin.backToStore') }));
  }
  plugin = answer.plugin;
  document.title = t('title.pluginNamed', { name: plugin.name });
  renderHead();
  renderInstall();
  renderGallery(plugin.screenshots || []);
  $('long').replaceChildren(...(plugin.longDescriptionTree?.length ? markdown(plugin.longDescriptionTree) : [richText(plugin.description || '')]));
  const related = answer.related || [];
  $('related').replaceChildren(...related.map(pluginCard));
  $('related-section').hidden = !related.length;
  setStatus(status, 'done');
  $('plugin').hidden = false;
  // Measured once shown.
  twoRows($('tags'));
  loadRatings(true);
  loadStats(30);
  loadVersions();
}

// Versions the store hosts, newest first (visitors see the approved ones; the
// author and administrators all, with their state). The live one's size is also
// shown beside its SHA-256, under the install button.
async function loadVersions() {
  const { versions } = await api(base + '/versions').catch(() => ({ versions: [] }));
  const live = versions.find((v) => v.version === plugin.version && v.sha256 === plugin.sha256);
  if (live) Object.assign($('pkg-size'), { textContent: t('versions.size', { size: formatSize(live.size) }), hidden: false });
  $('versions').replaceChildren(...versions.map(versionItem));
  $('versions-section').hidden = !versions.length;
}

function versionItem(v) {
  // A removed version's file is gone (malware): no link to it.
  const download = v.status !== 'removed' && /^https?:\/\//.test(v.download) && v.download;
  return h(
    'li.row-item.version',
    { dataset: { version: v.version, status: v.status } },
    h('div.row-head', {}, h('h3.grow', { text: t('versions.named', v) }), v.status !== 'approved' && h('span.badge.' + v.status, { text: t('status.' + v.status) }), when(v.createdAt)),
    changelog(v),
    h('p.muted', {}, t('versions.size', { size: formatSize(v.size) }), ' · SHA-256 ', hash(v.sha256)),
    download && h('a', { href: download, text: t('versions.download', v), rel: 'nofollow' }),
  );
}

function renderHead() {
  $('icon').replaceWith(Object.assign(pluginIcon(plugin, 'icon big'), { id: 'icon' }));
  text('name', plugin.name);
  text('author', t('plugin.by', { author: plugin.author || plugin.submitter }));
  text('version', t('plugin.version', plugin));
  showInstalls(plugin.installCount);
  text('summary', plugin.description || '');
  $('tags').replaceChildren(...(plugin.tags || []).map((tag) => h('li', {}, h('a.chip', { href: '/apps/?tag=' + enc(tag), text: tag }))));
  if (plugin.status !== 'approved') Object.assign($('pending-note'), { className: 'badge ' + plugin.status, textContent: t('status.' + plugin.status), hidden: false });
  $('edit-link').href = '/apps/edit/' + enc(plugin.id);
  $('edit-row').hidden = !me || !(me.admin || me.username === plugin.submitter);
  $('report-plugin').hidden = !me || me.username === plugin.submitter;
  $('report-plugin').onclick = () => report({ type: 'plugin', plugin: plugin.id }, t('report.pluginTitle', plugin), $('report-status'));
}

// Installs over time: the daily series as bars, 30, 90 or 365 days; its summary is
// the chart's text alternative, and shown under it. Only the last period asked is drawn.
let statsDays;
async function loadStats(days) {
  const status = $('stats-status');
  statsDays = days;
  for (const chip of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-days]'))) {
    chip.setAttribute('aria-pressed', String(chip.dataset.days == days));
    chip.onclick = () => loadStats(chip.dataset.days);
  }
  try {
    const { days: series, total } = await api(`${base}/stats?days=${days}`);
    if (days !== statsDays) return;
    const values = series.map((day) => day.installs);
    const summary = t('stats.summary', { total, days, max: Math.max(...values) });
    barChart(values, $('chart')).setAttribute('aria-label', summary);
    setStatus(status, 'done', summary);
  } catch (error) {
    failed(status, error);
  }
}

// Reports of the plugin or of a rating: a reason and a note, in a modal dialog (focus
// stays in it, Escape closes it and focus goes back to the button that opened it).
let reportTarget;
let reportStatus;
const reportValid = counted($('report-note'), $('report-counter'));
function report(target, title, status) {
  [reportTarget, reportStatus] = [target, status];
  $('report-form').reset();
  text('report-title', title);
  text('report-error', '');
  reportValid();
  $('report').showModal();
}
$('report-cancel').onclick = () => $('report').close();
onSubmit(
  $('report-form'),
  $('report-error'),
  async () => {
    if (!reportValid()) return tooLong();
    await api('/apps/api/reports', { target: reportTarget, reason: $('report-reason').value, note: $('report-note').value });
    $('report').close();
    setStatus(reportStatus, 'done', t('report.sent'));
  },
  { 409: 'report.already', 429: 'report.limit' },
);

const showInstalls = (n) => text('installs', t('card.installs', { n: formatNumber(n) }));

function renderInstall() {
  const permissions = plugin.permissions || [];
  $('permissions').replaceChildren(...(permissions.length ? permissions.map(permissionItem) : [h('li.muted', { text: t('plugin.noPermissions') })]));
  // What the live package runs ('python+qml': each part), when the store hosts it.
  const kinds = plugin.entryKind?.split('+') || [];
  $('entry').replaceChildren(...kinds.map((kind) => h('li', { dataset: { kind }, text: t('entry.' + kind) })));
  $('entry-block').hidden = !kinds.length;
  const download = httpsUrl(plugin.download);
  if (download) $('download').href = download;
  $('sha').value = plugin.sha256 || '';
  $('sha-block').hidden = !plugin.sha256;
  $('manifest').href = base + '/manifest.json';
  const homepage = httpsUrl(plugin.url);
  if (homepage) ($('homepage').href = homepage), ($('homepage-row').hidden = false);
  const install = $('install');
  const status = $('install-status');
  if (plugin.status !== 'approved') {
    install.disabled = true;
    return setStatus(status, 'done', t('plugin.notApprovedYet'));
  }
  // The store's watch found other bytes behind the link than were reviewed (packageCheck).
  if (plugin.packageCheck?.status == 'changed') {
    install.disabled = true;
    return setStatus(status, 'error', t('plugin.downloadChanged'));
  }
  // Ask for the link now, so the click opens the launcher at once.
  const link = api(base + '/install-link').then(({ install_url: url }) => (install.dataset.installUrl = url));
  link.catch(() => {});
  install.onclick = async () => {
    install.disabled = true;
    try {
      const [click, url] = await Promise.all([api(base + '/install-click', null, 'POST').catch(() => null), link]);
      if (click) showInstalls(click.installCount);
      setStatus(status, 'done', t('plugin.opening'));
      status.append(' ', h('a', { href: url, id: 'install-link', text: t('plugin.openAgain') }));
      location.href = url;
    } catch (error) {
      failed(status, error);
    }
    install.disabled = false;
  };
  $('copy-sha').onclick = () => copy($('sha'), status);
}

// Screenshots: the WebP preview first, the original when it fails; a dialog shows
// one large, with the arrow keys and buttons to move through them.
let shots = [];
let shown = 0;
function shotImage(i) {
  const shot = shots[i];
  const img = h('img', { src: shot.preview, alt: t('plugin.shotAlt', { n: i + 1, total: shots.length, name: plugin.name }), decoding: 'async' });
  img.addEventListener('error', () => (img.src = shot.url), { once: true });
  return img;
}

function renderGallery(list) {
  shots = list
    .map((shot) => ({ url: imageUrl(shot?.url ?? shot), preview: imageUrl(shot?.webpUrl) }))
    .filter((shot) => shot.url)
    .map((shot) => ({ url: shot.url, preview: shot.preview || shot.url }));
  $('shots').hidden = !shots.length;
  $('gallery').replaceChildren(...shots.map((_, i) => h('li', {}, button('shot', undefined, () => {
    $('viewer').showModal();
    showShot(i);
  }, { 'aria-label': t('plugin.openShot', { n: i + 1 }) }, shotImage(i)))));
}

function showShot(i) {
  shown = (i + shots.length) % shots.length;
  $('viewer-img').replaceWith(Object.assign(shotImage(shown), { id: 'viewer-img' }));
  text('viewer-count', t('plugin.shotCount', { n: shown + 1, total: shots.length }));
}

$('viewer-prev').onclick = () => showShot(shown - 1);
$('viewer-next').onclick = () => showShot(shown + 1);
$('viewer-close').onclick = () => $('viewer').close();
$('viewer').onkeydown = (event) => {
  const step = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
  if (step) {
    event.preventDefault();
    showShot(shown + step);
  }
};

// Ratings

async function loadRatings(first) {
  if (first) ratingsOffset = 0;
  const status = $('ratings-status');
  setStatus(status, 'loading', t('plugin.ratingsLoading'));
  try {
    // Pages of 20.
    const page = await api(`${base}/ratings?limit=20&offset=${ratingsOffset}`);
    if (first) renderSummary(page), renderRateArea(page.myRating), $('ratings').replaceChildren();
    $('ratings').append(...page.ratings.map(ratingItem));
    ratingsOffset += page.ratings.length;
    $('more-ratings').hidden = ratingsOffset >= page.count;
    setStatus(status, page.count ? 'done' : 'empty', page.count ? '' : t('plugin.noRatings'));
  } catch (error) {
    failed(status, error);
  }
}
$('more-ratings').onclick = () => loadRatings(false);

function renderSummary({ avg, count, distribution }) {
  // Nobody rated it: the status line says so, no summary of nothing.
  $('rating-summary').hidden = !count;
  text('rating-big', count ? avg.toFixed(1) : '–');
  $('rating-stars').replaceChildren(stars(avg, count));
  text('rating-count', t('plugin.ratingCount', { count }));
  document.querySelectorAll('.bars li').forEach((bar, i) => {
    const n = 5 - i;
    const k = distribution[n] || 0;
    bar.setAttribute('aria-label', t('plugin.barLabel', { n, count: k }));
    // Through the CSSOM: the CSP allows no style attributes.
    /** @type {HTMLElement} */ (bar.querySelector('.bar-fill')).style.width = (count ? (100 * k) / count : 0) + '%';
    bar.lastChild.textContent = k;
  });
}

let chosen = 0;
const radios = /** @type {NodeListOf<HTMLInputElement>} */ (document.getElementsByName('stars'));
for (const radio of radios) radio.onchange = () => {
  chosen = +radio.value;
  paintStars();
};
function renderRateArea(mine) {
  const form = $('rate-form');
  const own = me?.username === plugin.submitter;
  $('rate-login').firstChild.href = loginHref();
  $('rate-login').hidden = !!me;
  $('own-plugin-note').hidden = !own;
  $('rate-hidden').hidden = !mine?.hidden;
  form.hidden = true;
  if (!me || own || plugin.status !== 'approved') return;
  chosen = mine?.stars || 0;
  for (const radio of radios) radio.checked = +radio.value === chosen;
  paintStars();
  text('rate-legend', t(mine ? 'plugin.yourRating' : 'plugin.rateThis'));
  text('rate-send', t(mine ? 'plugin.updateRating' : 'plugin.sendRating'));
  $('rate-delete').hidden = !mine;
  $('rate-comment').value = mine?.comment || '';
  rateValid();
  form.hidden = false;
}

const paintStars = () => document.querySelectorAll('#star-radios label').forEach((label, i) => label.classList.toggle('on', i < chosen));
const rateValid = counted($('rate-comment'), $('rate-counter'));
/** After "delete it?": the DELETE, then `done`; a failure in the ratings' status line. */
const remove = (path, done) => confirm(t('plugin.confirmDelete')) && api(base + path, null, 'DELETE').then(done, (error) => failed($('ratings-status'), error));
$('rate-delete').onclick = () => remove('/ratings', () => loadRatings(true));
const tooLong = () => t('form.tooLong', { max: 500 });
onSubmit($('rate-form'), $('rate-error'), async () => {
  if (!chosen) return t('plugin.pickStars');
  if (!rateValid()) return tooLong();
  await api(base + '/ratings', { stars: chosen, comment: $('rate-comment').value }, 'PUT');
  loadRatings(true);
});

function ratingItem(rating) {
  const replies = h('ol.replies', {}, (rating.replies || []).map(replyItem));
  const head = h('div.rating-head', {}, who(rating.user, rating.avatar), stars(rating.stars), when(rating.updatedAt));
  const item = h('li.rating', { dataset: { user: rating.user } }, head, rating.comment && h('p', { text: rating.comment }), replies);
  if (me) {
    const open = button('ghost reply-open', t('plugin.reply'), () => {
      open.hidden = true;
      item.append(replyForm(rating, replies, () => (open.hidden = false)));
    });
    const title = t('report.ratingTitle', rating);
    const flag = me.username !== rating.user && button('ghost report-rating', t('report.rating'), () => report({ type: 'rating', plugin: plugin.id, user: rating.user }, title, $('ratings-status')), { 'aria-label': title });
    item.append(h('div.actions', {}, open, flag));
  }
  return item;
}

function replyItem(reply) {
  const head = h('div.rating-head', {}, who(reply.user, reply.avatar), when(reply.createdAt));
  const node = h('li.reply', { dataset: { id: reply.id } }, head, h('p', { text: reply.body }));
  // Its author or an administrator (the API's rule; anyone else would get 403).
  if (me && (me.admin || me.username.toLowerCase() === reply.user.toLowerCase())) {
    node.append(button('ghost danger', t('plugin.deleteReply'), () => remove('/ratings/replies/' + enc(reply.id), () => node.remove())));
  }
  return node;
}

let replyForms = 0;
function replyForm(rating, list, closed) {
  const n = ++replyForms;
  const form = $('reply-template').content.firstElementChild.cloneNode(true);
  const [label, text, counter, error] = form.children;
  Object.assign(label, { htmlFor: 'reply-' + n, textContent: t('plugin.replyTo', { user: rating.user }) });
  text.id = 'reply-' + n;
  text.setAttribute('aria-describedby', (counter.id = 'reply-counter-' + n));
  const valid = counted(text, counter);
  const close = () => closed(form.remove());
  form.querySelector('.secondary').onclick = close;
  onSubmit(form, error, async () => {
    if (!text.value.trim()) return t('plugin.replyEmpty');
    if (!valid()) return tooLong();
    const { reply } = await api(`${base}/ratings/${enc(rating.user)}/replies`, { body: text.value });
    list.prepend(replyItem(reply));
    close();
  });
  setTimeout(() => text.focus());
  return form;
}

load();
