// @ts-check
// The launcher's landing page: version, what's new and downloads from /api/info,
// the activity, tips, and the featured plugins as a way into the store.
import './header.js';
import { $, api, errorText, h, httpsUrl, imageUrl, lang, pluginCard, setStatus, t, text, UGC_REL } from './lib.js';

const isText = (value) => typeof value === 'string' && value.trim() !== '';

async function loadInfo() {
  try {
    // The configuration's texts in the page's language, where it has them.
    const info = await api('/api/info?lang=' + encodeURIComponent(lang));
    if (isText(info.description)) text('lead', info.description);
    if (isText(info.latestVersion)) text('version', t('landing.latest', { version: info.latestVersion }));
    if (isText(info.newVersionDescription)) text('whats-new-text', info.newVersionDescription), ($('whats-new').hidden = false);
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
  const buttons = [];
  for (const [mirror, label] of [['github', 'GitHub'], ['gitcode', 'GitCode']]) {
    for (const kind of ['exe', 'zip']) {
      // Anything but an https link (a missing mirror, a wrong type) is no button.
      const href = httpsUrl(channel?.[mirror]?.[kind]);
      const text = t(kind === 'exe' ? 'landing.installer' : 'landing.zip', { mirror: label }) + (beta ? ' · ' + t('landing.beta') : '');
      if (href) buttons.push(h('a.button.' + (buttons.length || beta ? 'secondary' : 'primary'), { href, rel: 'noopener noreferrer', text }));
    }
  }
  return buttons;
}

function renderActivity(activity) {
  if (!activity || activity.show !== true || !isText(activity.title)) return;
  text('activity-title', activity.title);
  text('activity-text', activity.description || '');
  text('activity-time', activity.time || '');
  const icon = imageUrl(activity.icon);
  // An icon that does not load leaves the page, not a broken picture.
  if (icon) Object.assign($('activity-icon'), { src: icon, hidden: false, onerror: (event) => event.target.remove() });
  const link = httpsUrl(activity.link);
  if (link) Object.assign($('activity-link'), { href: link, hidden: false, rel: UGC_REL, target: '_blank' });
  $('activity').hidden = false;
}

async function loadFeatured() {
  const list = $('featured');
  try {
    let { plugins } = await api('/apps/api/plugins?public=1&featured=1&limit=8');
    // No featured plugins yet: the most installed ones.
    if (!plugins.length) ({ plugins } = await api('/apps/api/plugins?public=1&sort=installs&limit=8'));
    list.replaceChildren(...(plugins.length ? plugins.map(pluginCard) : [h('li.muted', { text: t('store.emptyAll') })]));
  } catch (error) {
    list.replaceChildren(h('li.error', { text: errorText(error) }));
  }
}

loadInfo();
loadFeatured();
