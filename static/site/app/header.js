// @ts-check
// The header of every page: the language switch, notifications, and the account
// area (login, or avatar, name, My plugins, Review for administrators, logout).
import { $, api, button, currentSession, failed, h, lang, loginHref, onSubmit, pluginPath, setStatus, t, text, when, who } from './lib.js';

const other = lang === 'zh-CN' ? 'en' : 'zh-CN';
const switcher = $('lang-switch');
switcher.lang = other;
switcher.onclick = () => {
  // Read by the server (src/services/site/pages/language.ts), kept a year; not a secret, not HttpOnly.
  document.cookie = `lang=${other}; Path=/; Max-Age=31536000; SameSite=Lax`;
  location.reload();
};

export const sessionReady = currentSession().then((session) => {
  const user = session.user;
  if (!user) return $('account').append(loginControl()), session;
  $('me').replaceWith(who(user.username, user.avatar));
  $('nav-mine').hidden = $('logout').hidden = false;
  $('nav-review').hidden = !user.admin;
  $('logout').onclick = () => api('/apps/auth/logout', null, 'POST').catch(() => {}).then(() => location.assign('/apps/'));
  notifications().catch(() => {});
  return session;
});

// Notifications: the unread count on a button, which opens the newest 20 below the
// header; read one or all. One request a page, no polling.
async function notifications() {
  const { notifications: notes, unread } = await api('/apps/api/notifications?limit=20');
  const open = $('notes-button');
  const panel = $('notes-panel');
  const status = $('notes-status');
  // The count, on the button (its name says it) and in the list's live status line.
  const count = (n) => {
    text('notes-count', n || '');
    open.setAttribute('aria-label', t('notes.label', { n }));
    $('notes-all').disabled = !n;
    setStatus(status, notes.length ? 'done' : 'empty', notes.length ? t('notes.unreadCount', { n }) : t('notes.empty'));
  };
  const read = (body, items) =>
    api('/apps/api/notifications/read', body).then(({ unread }) => {
      for (const item of items) item.classList.remove('unread');
      count(unread);
      // The button pressed is now hidden or disabled: focus stays in the list.
      panel.focus();
    }, (error) => failed(status, error));
  $('notes-list').replaceChildren(
    ...notes.map((note) => {
      // Unread: a badge and a button, which the stylesheet hides once it is read.
      const item = h('li.row-item' + (note.read ? '' : '.unread'), { dataset: { id: note.id } }, h('strong', { text: t('notes.kind.' + note.kind, note) }), h('span.muted', { text: note.message }));
      const mark = h('span.mark', {}, h('span.badge.pending', { text: t('notes.unread') }), button('ghost', t('notes.markRead'), () => read({ ids: [note.id] }, [item])));
      item.append(h('div.row-head', {}, when(note.createdAt, true), note.plugin && h('a', { href: pluginPath(note.plugin), text: t('notes.view', note) }), mark));
      return item;
    }),
  );
  count(unread);
  $('notes-all').onclick = () => read({ all: true }, document.querySelectorAll('#notes-list .unread'));
  const show = (on) => {
    panel.hidden = !on;
    open.setAttribute('aria-expanded', on);
    (on ? panel : open).focus();
  };
  open.onclick = () => show(panel.hidden);
  // Escape closes the list and gives focus back to its button.
  document.addEventListener('keydown', (event) => event.key === 'Escape' && !panel.hidden && show(false));
  open.hidden = false;
}

function loginControl() {
  // With an identity provider: a plain link through it, back to this page.
  if (document.body.dataset.login === 'provider') return h('a.button.primary', { href: loginHref(), id: 'login', text: t('nav.login') });
  // Local accounts (no identity provider configured): the name and password form.
  return button('primary', t('nav.login'), () => $('login-dialog').showModal(), { id: 'login' });
}

$('login-cancel').onclick = () => $('login-dialog').close();
onSubmit(
  $('login-form'),
  $('login-error'),
  () =>
    api('/apps/auth/password', { username: $('login-username').value, password: $('login-password').value }).then(
      () => location.reload(),
      (failure) => {
        $('login-password').select();
        throw failure;
      },
    ),
  { INVALID_CREDENTIALS: 'login.invalid' },
);
