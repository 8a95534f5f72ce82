// The launcher's landing page: version, what's new and downloads from /api/info,
// the activity, tips, and the featured plugins as a way into the store.
import './header.js';
import { $, api, errorText, h, httpsUrl, imageUrl, pluginCard, setStatus, t, UGC_REL } from './lib.js';

const isText = (value) => typeof value === 'string' && value.trim() !== '';

async function loadInfo() {
  try {
    const info = await api('/api/info');
    if (isText(info.description)) $('lead').textContent = info.description;
    if (isText(info.latestVersion)) $('version').textContent = t('landing.latest', { version: info.latestVersion });
    if (isText(info.newVersionDescription)) ($('whats-new-text').textContent = info.newVersionDescription), ($('whats-new').hidden = false);
    $('downloads').replaceChildren(...downloadButtons(info.downloads?.stable, false), ...(info.beta?.enabled ? downloadButtons(info.downloads?.beta, true) : []));
    renderActivity(info.activity);
    const tips = Array.isArray(info.BLTips) ? info.BLTips.filter(isText) : [];
    $('tips-list').replaceChildren(...tips.map((tip) => h('li', { text: tip })));
    $('tips').hidden = tips.length === 0;
    setStatus($('info-status'), 'done');
  } catch (error) {
    setStatus($('info-status'), 'error', t('landing.infoError', { reason: errorText(error) }));
  }
}

/** The installers and ZIPs the configuration lists (GitHub and GitCode mirrors). */
function downloadButtons(channel, beta) {
  if (!channel || typeof channel !== 'object') return [];
  const buttons = [];
  for (const [mirror, label] of [['github', 'GitHub'], ['gitcode', 'GitCode']]) {
    const files = channel[mirror];
    if (!files || typeof files !== 'object') continue;
    for (const [kind, key] of [['exe', 'landing.installer'], ['zip', 'landing.zip']]) {
      const url = httpsUrl(files[kind]);
      if (!url) continue;
      const text = t(key, { mirror: label }) + (beta ? ' · ' + t('landing.beta') : '');
      buttons.push(h('a', { href: url, class: 'button ' + (buttons.length === 0 && !beta ? 'primary' : 'secondary'), rel: 'noopener noreferrer', text }));
    }
  }
  return buttons;
}

function renderActivity(activity) {
  if (!activity || activity.show !== true || !isText(activity.title)) return;
  $('activity-title').textContent = activity.title;
  $('activity-text').textContent = activity.description || '';
  $('activity-time').textContent = activity.time || '';
  const icon = imageUrl(activity.icon);
  if (icon) Object.assign($('activity-icon'), { src: icon, hidden: false, onerror: (event) => (event.target.hidden = true) });
  const link = httpsUrl(activity.link);
  if (link) Object.assign($('activity-link'), { href: link, hidden: false, rel: UGC_REL, target: '_blank' });
  $('activity').hidden = false;
}

async function loadFeatured() {
  const list = $('featured');
  try {
    let { plugins } = await api('/apps/api/plugins?public=1&featured=1&limit=8');
    // No featured plugins yet: the most installed ones.
    if (plugins.length === 0) ({ plugins } = await api('/apps/api/plugins?public=1&sort=installs&limit=8'));
    list.replaceChildren(...(plugins.length ? plugins.map(pluginCard) : [h('li', { class: 'muted', text: t('store.emptyAll') })]));
  } catch (error) {
    list.replaceChildren(h('li', { class: 'error', text: errorText(error) }));
  }
}

loadInfo();
loadFeatured();
