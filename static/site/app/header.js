// The header of every page: the language switch and the account area (login, or
// avatar, name, My plugins, Review for administrators, logout).
import { $, api, button, currentSession, errorText, h, lang, loginHref, t, who } from './lib.js';

const other = lang === 'zh-CN' ? 'en' : 'zh-CN';
$('lang-switch').setAttribute('lang', other);
$('lang-switch').onclick = () => {
  // Read by the server (src/site/pages/language.ts), kept a year; not a secret, not HttpOnly.
  document.cookie = `lang=${other}; Path=/; Max-Age=31536000; SameSite=Lax`;
  location.reload();
};

export const sessionReady = currentSession().then((session) => {
  $('account').replaceChildren(...(session.loggedIn ? accountLinks(session.user) : [loginControl()]));
  return session;
});

function accountLinks(user) {
  const logout = () => api('/apps/auth/logout', { method: 'POST' }).catch(() => {}).then(() => location.assign('/apps/'));
  return [
    who(user.username, user.avatar),
    h('a', { href: '/apps/mine', class: 'nav-link', text: t('nav.mine') }),
    user.admin && h('a', { href: '/apps/review', class: 'nav-link', text: t('nav.review') }),
    button('ghost', t('nav.logout'), logout),
  ].filter(Boolean);
}

function loginControl() {
  // With an identity provider: a plain link through it, back to this page.
  if (document.body.dataset.login === 'provider') return h('a', { href: loginHref(), class: 'button primary', id: 'login', text: t('nav.login') });
  // Local accounts (no identity provider configured): the name and password form.
  return button('primary', t('nav.login'), () => $('login-dialog').showModal(), { id: 'login' });
}

$('login-cancel').onclick = () => $('login-dialog').close();
$('login-form').onsubmit = async (event) => {
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
};
