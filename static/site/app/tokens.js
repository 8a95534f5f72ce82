// API tokens (src/site/tokens): create one, its secret shown once to copy; list; revoke.
import './header.js';
import { $, api, errorText, formatDate, h, setStatus, t } from './lib.js';

const status = $('status');
const form = $('token-form');
const secret = $('token-secret-value');

function row(token) {
  const revoke = h('button', { type: 'button', class: 'secondary', text: t('tokens.revoke'), 'aria-label': t('tokens.revokeNamed', { name: token.name }) });
  revoke.onclick = () => confirm(t('tokens.confirmRevoke', { name: token.name })) && load(api('/apps/api/tokens/' + token.id, { method: 'DELETE' }));
  const date = (key, iso) => t(key, { date: formatDate(iso) });
  const ends = date(Date.parse(token.expiresAt) > Date.now() ? 'tokens.expires.date' : 'tokens.expired', token.expiresAt);
  const used = token.lastUsedAt ? date('tokens.lastUsed', token.lastUsedAt) : t('tokens.neverUsed');
  const detail = [token.prefix + '…', token.scopes, date('tokens.created', token.createdAt), ends, used].join(' · ');
  const text = h('div', { class: 'grow' }, h('strong', { text: token.name }), h('div', { class: 'muted', text: detail }));
  return h('li', { class: 'row-item' }, h('div', { class: 'row-head' }, text, revoke));
}

/** Lists the tokens, after `before` (a change) when given; true when it could (logged in). */
async function load(before) {
  setStatus(status, 'loading', t('store.loading'));
  try {
    await before;
    const { tokens } = await api('/apps/api/tokens');
    $('list').replaceChildren(...tokens.map(row));
    const n = tokens.length;
    setStatus(status, n ? 'done' : 'empty', t(n ? 'tokens.count' : 'tokens.empty', { n }));
    return true;
  } catch (error) {
    setStatus(status, 'error', errorText(error));
  }
}

form.onsubmit = async (event) => {
  event.preventDefault();
  const error = $('token-error');
  const data = new FormData(form);
  try {
    secret.value = (await api('/apps/api/tokens', { method: 'POST', body: { name: data.get('name'), scopes: data.getAll('scope'), expiresInDays: +data.get('expiresInDays') } })).secret;
    error.hidden = true;
    $('token-secret').hidden = false;
    form.reset();
    load();
  } catch (failure) {
    error.textContent = failure.code === 'CONFLICT' ? t('tokens.tooMany') : errorText(failure);
    error.hidden = false;
  }
};

$('token-copy').onclick = () =>
  navigator.clipboard
    .writeText(secret.value)
    .then(() => 'tokens.copied', () => (secret.select(), 'tokens.copyManually'))
    .then((key) => setStatus($('token-copy-status'), 'done', t(key)));

// Not logged in: the list answers 401, whose message says to log in, and the form stays hidden.
load().then((shown) => (form.hidden = !shown));
