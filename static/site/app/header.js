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
  const open = h('button', { type: 'button', class: 'primary', id: 'login', text: t('nav.login') });
  open.addEventListener('click', () => localLoginDialog().showModal());
  return open;
}

/** Local accounts (no identity provider configured): name and password. */
function localLoginDialog() {
  const error = h('p', { class: 'error', attrs: { role: 'alert' }, hidden: true });
  const username = h('input', { id: 'login-username', name: 'username', autocomplete: 'username', required: true, maxLength: 64 });
  const password = h('input', { id: 'login-password', name: 'password', type: 'password', autocomplete: 'current-password', required: true, maxLength: 1024 });
  const cancel = h('button', { type: 'button', class: 'secondary', text: t('login.cancel') });
  const form = h(
    'form',
    { class: 'login-form' },
    h('h2', { id: 'login-title', text: t('login.title') }),
    error,
    h('label', { htmlFor: 'login-username', text: t('login.username') }),
    username,
    h('label', { htmlFor: 'login-password', text: t('login.password') }),
    password,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary', text: t('login.submit') }), cancel),
  );
  const dialog = h('dialog', { class: 'login-dialog', attrs: { 'aria-labelledby': 'login-title' } }, form);
  cancel.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => dialog.remove());
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.hidden = true;
    try {
      await api('/apps/auth/password', { method: 'POST', body: { username: username.value, password: password.value } });
      location.reload();
    } catch (failure) {
      error.textContent = failure.code === 'INVALID_CREDENTIALS' ? t('login.invalid') : errorText(failure);
      error.hidden = false;
      password.select();
    }
  });
  document.body.append(dialog);
  return dialog;
}
