// A plugin's page, at /apps/plugin/<id> (the Bloret launcher links there): what it
// is, what it may do (permissions, before the install button), screenshots, the
// install button, the ZIP and its SHA-256, ratings with replies, related plugins.
import { sessionReady } from './header.js';
import { $, api, errorText, formatDate, formatNumber, h, httpsUrl, imageUrl, loginHref, pluginCard, pluginIcon, richText, setStatus, stars, t } from './lib.js';

const MAX_TEXT = 500;
const RATINGS_PAGE = 20;
const id = decodeURIComponent(location.pathname.split('/')[3] || '');
const base = '/apps/api/plugins/' + encodeURIComponent(id);
let plugin;
let me = null;
let ratingsOffset = 0;

async function load() {
  setStatus($('status'), 'loading', t('plugin.loading'));
  let answer;
  try {
    [answer, { user: me }] = await Promise.all([api(base + '?include=related'), sessionReady]);
  } catch (error) {
    setStatus($('status'), 'error', error.status === 404 ? t('plugin.notFound') : t('plugin.error', { reason: errorText(error) }));
    if (error.status === 404) $('status').append(' ', h('a', { href: '/apps/', text: t('plugin.backToStore') }));
    return;
  }
  plugin = answer.plugin;
  document.title = t('title.pluginNamed', { name: plugin.name });
  renderHead();
  renderInstall();
  renderGallery(plugin.screenshots || []);
  $('long').replaceChildren(richText(plugin.longDescription || plugin.description || ''));
  const related = answer.related || [];
  $('related').replaceChildren(...related.map(pluginCard));
  $('related-section').hidden = related.length === 0;
  setStatus($('status'), 'done', '');
  $('plugin').hidden = false;
  loadRatings(true);
}

function renderHead() {
  $('icon').replaceWith(Object.assign(pluginIcon(plugin, 'icon big'), { id: 'icon' }));
  $('name').textContent = plugin.name;
  $('author').textContent = t('plugin.by', { author: plugin.author || plugin.submitter });
  $('version').textContent = t('plugin.version', { version: plugin.version });
  $('installs').textContent = t('card.installs', { n: formatNumber(plugin.installCount) });
  $('summary').textContent = plugin.description || '';
  $('tags').replaceChildren(...(plugin.tags || []).map((tag) => h('li', {}, h('a', { class: 'chip', href: '/apps/?tag=' + encodeURIComponent(tag), text: tag }))));
  if (plugin.status !== 'approved') {
    $('pending-note').className = 'badge ' + plugin.status;
    $('pending-note').textContent = t('status.' + plugin.status);
    $('pending-note').hidden = false;
  }
  const own = me && (me.admin || me.username === plugin.submitter);
  if (own) Object.assign($('edit-link'), { href: '/apps/edit/' + encodeURIComponent(plugin.id) }), ($('edit-row').hidden = false);
}

function renderInstall() {
  const permissions = plugin.permissions || [];
  $('permissions').replaceChildren(...(permissions.length ? permissions.map((p) => h('li', { text: p })) : [h('li', { class: 'muted', text: t('plugin.noPermissions') })]));
  const download = httpsUrl(plugin.download);
  if (download) $('download').href = download;
  if (plugin.sha256) {
    $('sha').value = plugin.sha256;
    $('sha-block').hidden = false;
  }
  $('manifest').href = base + '/manifest.json';
  const homepage = httpsUrl(plugin.url);
  if (homepage) Object.assign($('homepage'), { href: homepage }), ($('homepage-row').hidden = false);
  const install = $('install');
  if (plugin.status !== 'approved') {
    install.disabled = true;
    setStatus($('install-status'), 'done', t('plugin.notApprovedYet'));
    return;
  }
  // Ask for the link now, so the click opens the launcher at once.
  const link = api(base + '/install-link').then((answer) => {
    install.dataset.installUrl = answer.install_url;
    return answer.install_url;
  });
  link.catch(() => {});
  install.addEventListener('click', async () => {
    install.disabled = true;
    const status = $('install-status');
    try {
      const [click, url] = await Promise.all([api(base + '/install-click', { method: 'POST' }).catch(() => null), link]);
      if (click) $('installs').textContent = t('card.installs', { n: formatNumber(click.installCount) });
      setStatus(status, 'done', t('plugin.opening'));
      status.append(' ', h('a', { href: url, id: 'install-link', text: t('plugin.openAgain') }));
      location.href = url;
    } catch (error) {
      setStatus(status, 'error', errorText(error));
    } finally {
      install.disabled = false;
    }
  });
  $('copy-sha').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(plugin.sha256);
      setStatus($('install-status'), 'done', t('plugin.copied'));
    } catch {
      $('sha').select();
      setStatus($('install-status'), 'done', t('plugin.copyManually'));
    }
  });
}

// Screenshots: the WebP preview first, the original when it fails; a dialog shows
// one large, with the arrow keys and buttons to move through them.
function shotUrls(shot) {
  const url = imageUrl(typeof shot === 'string' ? shot : shot?.url);
  const webp = typeof shot === 'object' ? imageUrl(shot?.webpUrl) : null;
  return url ? { url, preview: webp || url } : null;
}

function shotImage(shot, alt) {
  const img = h('img', { src: shot.preview, alt, loading: 'lazy', decoding: 'async' });
  img.addEventListener('error', () => (img.src = shot.url), { once: true });
  return img;
}

let shots = [];
let shown = 0;
function renderGallery(list) {
  shots = list.map(shotUrls).filter(Boolean);
  $('shots').hidden = shots.length === 0;
  $('gallery').replaceChildren(
    ...shots.map((shot, i) => {
      const alt = t('plugin.shotAlt', { n: i + 1, total: shots.length, name: plugin.name });
      return h('li', {}, h('button', { type: 'button', class: 'shot', 'aria-label': t('plugin.openShot', { n: i + 1 }), onclick: () => openViewer(i) }, shotImage(shot, alt)));
    }),
  );
}

function openViewer(i) {
  showShot(i);
  $('viewer').showModal();
}

function showShot(i) {
  shown = (i + shots.length) % shots.length;
  const shot = shots[shown];
  const img = shotImage(shot, t('plugin.shotAlt', { n: shown + 1, total: shots.length, name: plugin.name }));
  img.id = 'viewer-img';
  img.loading = 'eager';
  $('viewer-img').replaceWith(img);
  $('viewer-count').textContent = t('plugin.shotCount', { n: shown + 1, total: shots.length });
}

$('viewer-prev').addEventListener('click', () => showShot(shown - 1));
$('viewer-next').addEventListener('click', () => showShot(shown + 1));
$('viewer-close').addEventListener('click', () => $('viewer').close());
$('viewer').addEventListener('keydown', (event) => {
  if (event.key === 'ArrowLeft') showShot(shown - 1);
  else if (event.key === 'ArrowRight') showShot(shown + 1);
  else return;
  event.preventDefault();
});

// Ratings

async function loadRatings(first) {
  if (first) ratingsOffset = 0;
  const status = $('ratings-status');
  setStatus(status, 'loading', t('plugin.ratingsLoading'));
  try {
    const page = await api(`${base}/ratings?limit=${RATINGS_PAGE}&offset=${ratingsOffset}`);
    if (first) {
      renderSummary(page);
      renderRateArea(page.myRating);
      $('ratings').replaceChildren();
    }
    $('ratings').append(...page.ratings.map(ratingItem));
    ratingsOffset += page.ratings.length;
    $('more-ratings').hidden = ratingsOffset >= page.count;
    setStatus(status, page.count === 0 ? 'empty' : 'done', page.count === 0 ? t('plugin.noRatings') : '');
  } catch (error) {
    setStatus(status, 'error', errorText(error));
  }
}
$('more-ratings').addEventListener('click', () => loadRatings(false));

function renderSummary({ avg, count, distribution }) {
  const bars = [5, 4, 3, 2, 1].map((n) => {
    const fill = h('span', { class: 'bar-fill' });
    // Through the CSSOM: the CSP allows no style attributes.
    fill.style.width = (count ? (100 * (distribution[n] || 0)) / count : 0) + '%';
    const hidden = { 'aria-hidden': 'true' };
    const label = t('plugin.barLabel', { n, count: distribution[n] || 0 });
    return h('li', { 'aria-label': label }, h('span', { text: n + ' ★', ...hidden }), h('span', { class: 'bar-track', ...hidden }, fill), h('span', { text: String(distribution[n] || 0), ...hidden }));
  });
  $('rating-summary').replaceChildren(
    h('div', {}, h('div', { class: 'rating-big', text: count ? avg.toFixed(1) : '–' }), stars(avg, count), h('div', { class: 'muted', text: t('plugin.ratingCount', { count }) })),
    h('ul', { class: 'bars', 'aria-label': t('plugin.distribution') }, bars),
  );
}

function counted(textarea, counter) {
  const update = () => {
    const length = [...textarea.value].length;
    counter.textContent = t('form.counter', { n: length, max: MAX_TEXT });
    counter.classList.toggle('over', length > MAX_TEXT);
    textarea.setAttribute('aria-invalid', String(length > MAX_TEXT));
    return length <= MAX_TEXT;
  };
  textarea.addEventListener('input', update);
  update();
  return update;
}

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
      h('label', {}, h('input', { type: 'radio', name: 'stars', value: String(n), checked: n === chosen, onchange: () => ((chosen = n), paintStars()) }), h('span', { text: '★', 'aria-hidden': 'true' }), h('span', { class: 'visually-hidden', text: t('rating.stars', { n }) })),
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

let chosen = 0;
const paintStars = () => document.querySelectorAll('#star-radios label').forEach((label, i) => label.classList.toggle('on', i < chosen));
const rateValid = counted($('rate-comment'), $('rate-counter'));
$('rate-delete').addEventListener('click', () => removeRating());
$('rate-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const error = $('rate-error');
  if (!chosen) return (error.textContent = t('plugin.pickStars'));
  if (!rateValid()) return (error.textContent = t('form.tooLong', { max: MAX_TEXT }));
  try {
    await api(base + '/ratings', { method: 'PUT', body: { stars: chosen, comment: $('rate-comment').value } });
    error.textContent = '';
    loadRatings(true);
  } catch (failure) {
    error.textContent = errorText(failure);
  }
});

async function removeRating() {
  if (!confirm(t('plugin.confirmDelete'))) return;
  try {
    await api(base + '/ratings', { method: 'DELETE' });
    loadRatings(true);
  } catch (error) {
    setStatus($('ratings-status'), 'error', errorText(error));
  }
}

function person(user, avatar) {
  const src = imageUrl(avatar);
  return h('span', { class: 'who' }, src ? h('img', { class: 'avatar', src, alt: '', width: 28, height: 28, loading: 'lazy' }) : null, h('span', { text: user }));
}

const when = (iso) => h('time', { class: 'muted', dateTime: iso, text: formatDate(iso) });

function ratingItem(rating) {
  const replies = h('ol', { class: 'replies' }, (rating.replies || []).map((reply) => replyItem(reply)));
  const head = h('div', { class: 'rating-head' }, person(rating.user, rating.avatar), stars(rating.stars), when(rating.updatedAt));
  const item = h('li', { class: 'rating', dataset: { user: rating.user } }, head, rating.comment ? h('p', { text: rating.comment }) : null, replies);
  if (me) {
    const open = h('button', { type: 'button', class: 'ghost reply-open', text: t('plugin.reply') });
    open.addEventListener('click', () => {
      open.hidden = true;
      item.append(replyForm(rating, replies, () => (open.hidden = false)));
    });
    item.append(open);
  }
  return item;
}

function replyItem(reply) {
  const head = h('div', { class: 'rating-head' }, person(reply.user, reply.avatar), when(reply.createdAt));
  const node = h('li', { class: 'reply', dataset: { id: String(reply.id) } }, head, h('p', { text: reply.body }));
  const remove = async () => {
    if (!confirm(t('plugin.confirmDelete'))) return;
    try {
      await api(`${base}/ratings/replies/${encodeURIComponent(reply.id)}`, { method: 'DELETE' });
      node.remove();
    } catch (error) {
      setStatus($('ratings-status'), 'error', errorText(error));
    }
  };
  // Its author or an administrator (the API's rule; anyone else would get 403).
  if (me && (me.admin || me.username.toLowerCase() === reply.user.toLowerCase())) {
    node.append(h('button', { type: 'button', class: 'ghost danger', text: t('plugin.deleteReply'), onclick: remove }));
  }
  return node;
}

let replyForms = 0;
function replyForm(rating, list, closed) {
  const n = ++replyForms;
  const form = $('reply-template').content.firstElementChild.cloneNode(true);
  const [label, text, counter, error] = form.children;
  Object.assign(label, { htmlFor: 'reply-' + n, textContent: t('plugin.replyTo', { user: rating.user }) });
  Object.assign(text, { id: 'reply-' + n });
  text.setAttribute('aria-describedby', (counter.id = 'reply-counter-' + n));
  const valid = counted(text, counter);
  form.querySelector('.secondary').addEventListener('click', () => (form.remove(), closed()));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!text.value.trim()) return (error.textContent = t('plugin.replyEmpty'));
    if (!valid()) return (error.textContent = t('form.tooLong', { max: MAX_TEXT }));
    try {
      const { reply } = await api(`${base}/ratings/${encodeURIComponent(rating.user)}/replies`, { method: 'POST', body: { body: text.value } });
      list.prepend(replyItem(reply));
      form.remove();
      closed();
    } catch (failure) {
      error.textContent = errorText(failure);
    }
  });
  setTimeout(() => text.focus());
  return form;
}

load();
