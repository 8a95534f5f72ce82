// @ts-check
// API tokens (src/services/site/auth/tokens): create one, its secret shown once to copy; list;
// revoke. And the webhook (src/services/site/webhooks): its address, its signing secret
// shown once, rotate, remove, the deliveries.
import './header.js';
import { $, api, button, copy, formatDate, h, onSubmit, showList, t, text } from './lib.js';

const status = $('status');
const form = $('token-form');
const secret = $('token-secret-value');

function row(token) {
  const revoke = button('secondary', t('tokens.revoke'), () => confirm(t('tokens.confirmRevoke', token)) && load(api('/apps/api/tokens/' + token.id, null, 'DELETE')), { 'aria-label': t('tokens.revokeNamed', token) });
  const date = (key, iso) => t(key, { date: formatDate(iso) });
  const ends = date(Date.parse(token.expiresAt) > Date.now() ? 'tokens.expires.date' : 'tokens.expired', token.expiresAt);
  const used = token.lastUsedAt ? date('tokens.lastUsed', token.lastUsedAt) : t('tokens.neverUsed');
  const detail = [token.prefix + '…', token.scopes, date('tokens.created', token.createdAt), ends, used].join(' · ');
  const about = h('div.grow', {}, h('strong', { text: token.name }), h('div.muted', { text: detail }));
  return h('li.row-item', {}, h('div.row-head', {}, about, revoke));
}

/** Lists the tokens, after `before` (a change) when given; true when it could (logged in). */
const load = (before) =>
  showList(
    status,
    $('list'),
    async () => {
      await before;
      const { tokens } = await api('/apps/api/tokens');
      return [tokens, t('tokens.count', { n: tokens.length })];
    },
    row,
    'tokens.empty',
  );

onSubmit(
  form,
  $('token-error'),
  async () => {
    const data = new FormData(form);
    secret.value = (await api('/apps/api/tokens', { name: data.get('name'), scopes: data.getAll('scope'), expiresInDays: +data.get('expiresInDays') })).secret;
    $('token-secret').hidden = false;
    form.reset();
    load();
  },
  { CONFLICT: 'tokens.tooMany' },
);

$('token-copy').onclick = () => copy(secret, $('token-copy-status'));
$('hook-copy').onclick = () => copy($('hook-secret-value'), $('hook-status'));

/** A delivery: its kind, state, attempts and time; the last status code and error. */
function delivery(item) {
  const said = t('hook.delivery', { ...item, status: t('hook.status.' + item.status), date: formatDate(item.createdAt, true) });
  return h('li.row-item', { dataset: { status: item.status } }, said + (item.lastStatusCode ? ' · HTTP ' + item.lastStatusCode : ''), item.lastError && h('span.error', { text: item.lastError }));
}

/** The webhook and its deliveries, after `change` when given (its answer may hold the new secret). */
const hook = (change) =>
  showList(
    $('hook-status'),
    $('hook-deliveries'),
    async () => {
      const secret = (await change)?.webhook?.secret;
      if (secret) ($('hook-secret-value').value = secret), ($('hook-secret').hidden = false);
      const [{ webhook }, { deliveries }] = await Promise.all([api('/apps/api/webhook'), api('/apps/api/webhook/deliveries')]);
      $('hook-url').value = webhook?.url || '';
      text('hook-state', webhook ? t('hook.set', { url: webhook.url, date: formatDate(webhook.createdAt) }) : t('hook.none'));
      $('hook-rotate').hidden = $('hook-remove').hidden = !webhook;
      $('hook').hidden = false;
      return [deliveries, ''];
    },
    delivery,
    'hook.noDeliveries',
  );
const put = (body) => hook(api('/apps/api/webhook', { url: $('hook-url').value.trim(), ...body }, 'PUT'));
$('hook-form').onsubmit = (event) => put(event.preventDefault());
$('hook-rotate').onclick = () => put({ rotateSecret: true });
$('hook-remove').onclick = () => {
  if (!confirm(t('hook.confirmRemove'))) return;
  $('hook-secret').hidden = true;
  hook(api('/apps/api/webhook', null, 'DELETE'));
};

// Not logged in: the list answers 401, whose message says to log in, and the forms stay hidden.
load().then((shown) => (form.hidden = !shown) || hook());
