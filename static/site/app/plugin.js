// A plugin's page, at /apps/plugin/<id> (the Bloret launcher links there): what it
// is, what it may do (permissions, before the install button), screenshots, the
// install button, the ZIP and its SHA-256, ratings with replies, related plugins.
import { sessionReady } from './header.js';
import { $, api, button, counted, enc, errorText, failed, formatNumber, h, httpsUrl, imageUrl, loginHref, pluginCard, pluginIcon, richText, setStatus, stars, t, when, who } from './lib.js';

const RATINGS_PAGE = 20;
const id = decodeURIComponent(location.pathname.split('/')[3] || '');
const base = '/apps/api/plugins/' + enc(id);
let plugin;
let me = null;
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
  $('long').replaceChildren(richText(plugin.longDescription || plugin.description || ''));
  const related = answer.related || [];
  $('related').replaceChildren(...related.map(pluginCard));
  $('related-section').hidden = !related.length;
  setStatus(status, 'done');
  $('plugin').hidden = false;
  loadRatings(true);
}

function renderHead() {
  $('icon').replaceWith(Object.assign(pluginIcon(plugin, 'icon big'), { id: 'icon' }));
  $('name').textContent = plugin.name;
  $('author').textContent = t('plugin.by', { author: plugin.author || plugin.submitter });
  $('version').textContent = t('plugin.version', { version: plugin.version });
  showInstalls(plugin.installCount);
  $('summary').textContent = plugin.description || '';
  $('tags').replaceChildren(...(plugin.tags || []).map((tag) => h('li', {}, h('a', { class: 'chip', href: '/apps/?tag=' + enc(tag), text: tag }))));
  if (plugin.status !== 'approved') Object.assign($('pending-note'), { className: 'badge ' + plugin.status, textContent: t('status.' + plugin.status), hidden: false });
  $('edit-link').href = '/apps/edit/' + enc(plugin.id);
  $('edit-row').hidden = !me || !(me.admin || me.username === plugin.submitter);
}

const showInstalls = (n) => ($('installs').textContent = t('card.installs', { n: formatNumber(n) }));

function renderInstall() {
  const permissions = plugin.permissions || [];
  $('permissions').replaceChildren(...(permissions.length ? permissions.map((p) => h('li', { text: p })) : [h('li', { class: 'muted', text: t('plugin.noPermissions') })]));
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
  // Ask for the link now, so the click opens the launcher at once.
  const link = api(base + '/install-link').then(({ install_url: url }) => (install.dataset.installUrl = url));
  link.catch(() => {});
  install.onclick = async () => {
    install.disabled = true;
    try {
      const [click, url] = await Promise.all([api(base + '/install-click', { method: 'POST' }).catch(() => null), link]);
      if (click) showInstalls(click.installCount);
      setStatus(status, 'done', t('plugin.opening'));
      status.append(' ', h('a', { href: url, id: 'install-link', text: t('plugin.openAgain') }));
      location.href = url;
    } catch (error) {
      failed(status, error);
    }
    install.disabled = false;
  };
  $('copy-sha').onclick = () =>
    navigator.clipboard.writeText(plugin.sha256).then(() => 'plugin.copied', () => ($('sha').select(), 'plugin.copyManually')).then((key) => setStatus(status, 'done', t(key)));
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
  $('gallery').replaceChildren(...shots.map((_, i) => h('li', {}, button('shot', undefined, () => showShot(i, $('viewer').showModal()), { 'aria-label': t('plugin.openShot', { n: i + 1 }) }, shotImage(i)))));
}

function showShot(i) {
  shown = (i + shots.length) % shots.length;
  $('viewer-img').replaceWith(Object.assign(shotImage(shown), { id: 'viewer-img' }));
  $('viewer-count').textContent = t('plugin.shotCount', { n: shown + 1, total: shots.length });
}

$('viewer-prev').onclick = () => showShot(shown - 1);
$('viewer-next').onclick = () => showShot(shown + 1);
$('viewer-close').onclick = () => $('viewer').close();
$('viewer').onkeydown = (event) => {
  const step = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
  if (step) showShot(shown + step, event.preventDefault());
};

// Ratings

async function loadRatings(first) {
  if (first) ratingsOffset = 0;
  const status = $('ratings-status');
  setStatus(status, 'loading', t('plugin.ratingsLoading'));
  try {
    const page = await api(`${base}/ratings?limit=${RATINGS_PAGE}&offset=${ratingsOffset}`);
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
  const bars = [5, 4, 3, 2, 1].map((n) => {
    const fill = h('span', { class: 'bar-fill' });
    // Through the CSSOM: the CSP allows no style attributes.
    fill.style.width = (count ? (100 * (distribution[n] || 0)) / count : 0) + '%';
    const label = t('plugin.barLabel', { n, count: distribution[n] || 0 });
    return h('li', { 'aria-label': label }, ...[h('span', { text: n + ' ★' }), h('span', { class: 'bar-track' }, fill), h('span', { text: distribution[n] || 0 })].map((part) => (part.ariaHidden = 'true', part)));
  });
  $('rating-summary').replaceChildren(
    h('div', {}, h('div', { class: 'rating-big', text: count ? avg.toFixed(1) : '–' }), stars(avg, count), h('div', { class: 'muted', text: t('plugin.ratingCount', { count }) })),
    h('ul', { class: 'bars', 'aria-label': t('plugin.distribution') }, bars),
  );
}

let chosen = 0;
function renderRateArea(mine) {
  const area = $('rate-area');
  const form = $('rate-form');
  form.hidden = true;
  if (!me) return area.replaceChildren(h('p', {}, h('a', { href: loginHref(), text: t('plugin.loginToRate') })));
  if (me.username === plugin.submitter) return area.replaceChildren(h('p', { class: 'muted', id: 'own-plugin-note', text: t('plugin.ownPlugin') }));
  if (plugin.status !== 'approved') return;
  chosen = mine?.stars || 0;
  $('star-radios').replaceChildren(
    ...[1, 2, 3, 4, 5].map((n) =>
      h('label', {}, h('input', { type: 'radio', name: 'stars', value: n, checked: n === chosen, onchange: () => paintStars((chosen = n)) }), h('span', { text: '★', 'aria-hidden': 'true' }), h('span', { class: 'visually-hidden', text: t('rating.stars', { n }) })),
    ),
  );
  paintStars();
  $('rate-legend').textContent = t(mine ? 'plugin.yourRating' : 'plugin.rateThis');
  $('rate-send').textContent = t(mine ? 'plugin.updateRating' : 'plugin.sendRating');
  $('rate-delete').hidden = !mine;
  $('rate-comment').value = mine?.comment || '';
  rateValid();
  form.hidden = false;
}

const paintStars = () => document.querySelectorAll('#star-radios label').forEach((label, i) => label.classList.toggle('on', i < chosen));
const rateValid = counted($('rate-comment'), $('rate-counter'));
/** After "delete it?": the DELETE, then `done`; a failure in the ratings' status line. */
const remove = (path, done) => confirm(t('plugin.confirmDelete')) && api(base + path, { method: 'DELETE' }).then(done, (error) => failed($('ratings-status'), error));
$('rate-delete').onclick = () => remove('/ratings', () => loadRatings(true));
$('rate-form').onsubmit = async (event) => {
  event.preventDefault();
  const error = $('rate-error');
  if (!chosen) return (error.textContent = t('plugin.pickStars'));
  if (!rateValid()) return (error.textContent = t('form.tooLong', { max: 500 }));
  try {
    await api(base + '/ratings', { method: 'PUT', body: { stars: chosen, comment: $('rate-comment').value } });
    error.textContent = '';
    loadRatings(true);
  } catch (failure) {
    error.textContent = errorText(failure);
  }
};

function ratingItem(rating) {
  const replies = h('ol', { class: 'replies' }, (rating.replies || []).map(replyItem));
  const head = h('div', { class: 'rating-head' }, who(rating.user, rating.avatar), stars(rating.stars), when(rating.updatedAt));
  const item = h('li', { class: 'rating', dataset: { user: rating.user } }, head, rating.comment && h('p', { text: rating.comment }), replies);
  if (me) {
    const open = button('ghost reply-open', t('plugin.reply'), () => item.append(replyForm(rating, replies, () => (open.hidden = false)), (open.hidden = true)));
    item.append(open);
  }
  return item;
}

function replyItem(reply) {
  const head = h('div', { class: 'rating-head' }, who(reply.user, reply.avatar), when(reply.createdAt));
  const node = h('li', { class: 'reply', dataset: { id: reply.id } }, head, h('p', { text: reply.body }));
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
  form.onsubmit = async (event) => {
    event.preventDefault();
    if (!text.value.trim()) return (error.textContent = t('plugin.replyEmpty'));
    if (!valid()) return (error.textContent = t('form.tooLong', { max: 500 }));
    try {
      const { reply } = await api(`${base}/ratings/${enc(rating.user)}/replies`, { method: 'POST', body: { body: text.value } });
      list.prepend(replyItem(reply));
      close();
    } catch (failure) {
      error.textContent = errorText(failure);
    }
  };
  setTimeout(() => text.focus());
  return form;
}

load();
