// The header of every page: the language switch and the account area (login, or
// avatar, name, My plugins, Review for administrators, logout).
import { $, api, currentSession, errorText, h, imageUrl, lang, loginHref, t } from './lib.js';

const ONE_YEAR = 365 * 24 * 3600;

$('lang-switch')?.addEventListener('click', () => {
  const next = lang === 'zh-CN' ? 'en' : 'zh-CN';
  // Read by the server (src/site/pages/language.ts); not a secret, not HttpOnly.
  document.cookie = `lang=${next}; Path=/; Max-Age=${ONE_YEAR}; SameSite=Lax`;
  location.reload();
});
$('lang-switch')?.setAttribute('lang', lang === 'zh-CN' ? 'en' : 'zh-CN');

export const sessionReady = currentSession().then((session) => {
  const area = $('account');
  if (!area) return session;
  area.replaceChildren(...(session.loggedIn ? accountLinks(session.user) : [loginControl()]));
  return session;
});

function accountLinks(user) {
  const avatar = imageUrl(user.avatar);
  const logout = h('button', { type: 'button', class: 'ghost', text: t('nav.logout') });
  logout.addEventListener('click', async () => {
    try {
      await api('/apps/auth/logout', { method: 'POST' });
    } finally {
      location.assign('/apps/');
    }
  });
  return [
    h('span', { class: 'who' }, avatar ? h('img', { class: 'avatar', src: avatar, alt: '', width: 28, height: 28 }) : null, h('span', { class: 'username', text: user.username })),
    h('a', { href: '/apps/mine', class: 'nav-link', text: t('nav.mine') }),
    user.admin ? h('a', { href: '/apps/review', class: 'nav-link', text: t('nav.review') }) : null,
    logout,
  ].filter(Boolean);
}

function loginControl() {
  // With an identity provider: a plain link through it, back to this page.
  if (document.body.dataset.login === 'provider') return h('a', { href: loginHref(), class: 'button primary', id: 'login', text: t('nav.login') });
  // Local accounts (no identity provider configured): the name and password form.
  return h('button', { type: 'button', class: 'primary', id: 'login', text: t('nav.login'), onclick: () => $('login-dialog').showModal() });
}

$('login-cancel').addEventListener('click', () => $('login-dialog').close());
$('login-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const error = $('login-error');
  error.hidden = true;
  try {
    await api('/apps/auth/password', { method: 'POST', body: { username: $('login-username').value, password: $('login-password').value } });
    location.reload();
  } catch (failure) {
    error.textContent = failure.code === 'INVALID_CREDENTIALS' ? t('login.invalid') : errorText(failure);
    error.hidden = false;
    $('login-password').select();
  }
});
