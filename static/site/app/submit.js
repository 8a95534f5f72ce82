// Submit a plugin (/apps/submit) or edit one (/apps/edit/<id>). The API checks
// every field; its `field` errors are shown next to their field. Images go
// through the media upload; the SHA-256 is computed here from the ZIP itself.
import { sessionReady } from './header.js';
import { $, api, errorText, h, imageUrl, loginHref, pluginPath, setStatus, t } from './lib.js';

const MAX_SCREENSHOTS = 8;
const MAX_IMAGE_BYTES = 8 * 1024 * 1024;
const TEXT_FIELDS = ['name', 'version', 'author', 'description', 'longDescription', 'download', 'sha256', 'url', 'icon'];
/** Optional links: an emptied field clears them (the API takes null). */
const CLEARABLE = new Set(['sha256', 'url', 'icon']);

const form = $('plugin-form');
const editId = location.pathname.startsWith('/apps/edit/') ? decodeURIComponent(location.pathname.slice('/apps/edit/'.length)) : null;
const chips = { tags: [], permissions: [] };
let screenshots = [];
let initial = null;

// Chips (tags, permissions)

function renderChips(name) {
  const remove = (i) => () => (chips[name].splice(i, 1), renderChips(name), $('f-' + name).focus());
  const chip = (value, i) => h('li', { class: 'chip' }, h('span', { text: value }), h('button', { type: 'button', text: '×', 'aria-label': t('form.removeChip', { value }), onclick: remove(i) }));
  $(name + '-chips').replaceChildren(...chips[name].map(chip));
}

function addChips(name, text) {
  for (const value of text.split(/[,，\s]+/).map((v) => v.trim()).filter(Boolean)) {
    if (!chips[name].some((v) => v.toLowerCase() === value.toLowerCase())) chips[name].push(value);
  }
  renderChips(name);
}

for (const name of Object.keys(chips)) {
  const input = $('f-' + name);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ',') {
      event.preventDefault();
      addChips(name, input.value);
      input.value = '';
    } else if (event.key === 'Backspace' && input.value === '' && chips[name].length) {
      chips[name].pop();
      renderChips(name);
    }
  });
  input.addEventListener('blur', () => {
    addChips(name, input.value);
    input.value = '';
  });
}

// Uploads through /apps/api/media/upload, with progress

function upload(file, progress) {
  return new Promise((resolve, reject) => {
    if (file.size > MAX_IMAGE_BYTES) return reject(new Error(t('form.imageTooBig')));
    const body = new FormData();
    body.append('image', file, file.name);
    // XMLHttpRequest: fetch reports no upload progress.
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/apps/api/media/upload');
    xhr.responseType = 'json';
    xhr.upload.addEventListener('progress', (event) => event.lengthComputable && (progress.value = (100 * event.loaded) / event.total));
    xhr.addEventListener('load', () => {
      const answer = xhr.response;
      if (xhr.status === 200 && answer?.success) resolve(answer.data);
      else reject(new Error(answer?.error || t('error.server')));
    });
    xhr.addEventListener('error', () => reject(new Error(t('error.network'))));
    xhr.send(body);
  });
}

/** A local preview before the upload ends (a data: URL: the CSP allows no blob: images). */
function localPreview(file, img) {
  const reader = new FileReader();
  reader.addEventListener('load', () => !img.dataset.uploaded && (img.src = reader.result));
  reader.readAsDataURL(file);
}

$('icon-file').addEventListener('change', async (event) => {
  const file = event.target.files[0];
  event.target.value = '';
  if (!file) return;
  const preview = $('icon-preview');
  const progress = $('icon-progress');
  preview.hidden = false;
  delete preview.dataset.uploaded;
  localPreview(file, preview);
  progress.hidden = false;
  progress.value = 0;
  showFieldError('icon', '');
  try {
    const data = await upload(file, progress);
    $('f-icon').value = data.url;
    preview.dataset.uploaded = '1';
    preview.src = data.url;
    $('icon-clear').hidden = false;
  } catch (error) {
    showFieldError('icon', error.message);
  } finally {
    progress.hidden = true;
  }
});
$('icon-clear').addEventListener('click', () => {
  $('f-icon').value = '';
  $('icon-preview').hidden = true;
  $('icon-clear').hidden = true;
});
$('f-icon').addEventListener('change', () => {
  const src = imageUrl($('f-icon').value.trim());
  Object.assign($('icon-preview'), src ? { src, hidden: false } : { hidden: true });
});

function renderShots() {
  $('shot-list').replaceChildren(
    ...screenshots.map((shot, i) => {
      const move = (delta) => () => {
        const [item] = screenshots.splice(i, 1);
        screenshots.splice(i + delta, 0, item);
        renderShots();
        $('shot-list').children[i + delta]?.querySelector(delta < 0 ? '.up' : '.down')?.focus();
      };
      const label = t('form.shotLabel', { n: i + 1 });
      const button = (props) => h('button', { type: 'button', ...props });
      return h('li', { dataset: { state: shot.state } }, shot.img, h('span', { class: 'muted', text: label }),
        shot.state === 'uploading' ? shot.progress : null, shot.error ? h('span', { class: 'error', text: shot.error }) : null,
        button({ class: 'ghost up', text: '↑', disabled: i === 0, 'aria-label': t('form.moveUp', { n: i + 1 }), onclick: move(-1) }),
        button({ class: 'ghost down', text: '↓', disabled: i === screenshots.length - 1, 'aria-label': t('form.moveDown', { n: i + 1 }), onclick: move(1) }),
        button({ class: 'ghost danger', text: t('field.remove'), 'aria-label': t('form.removeShot', { n: i + 1 }), onclick: () => (screenshots.splice(i, 1), renderShots()) }));
    }),
  );
  $('shot-file').disabled = screenshots.length >= MAX_SCREENSHOTS;
}

function shotFromValue(value) {
  const url = typeof value === 'string' ? value : value?.url;
  const webpUrl = typeof value === 'object' ? value?.webpUrl : undefined;
  const src = imageUrl(webpUrl) || imageUrl(url);
  return { state: 'done', value: webpUrl ? { url, webpUrl } : url, img: h('img', { src: src || '', alt: '', dataset: { uploaded: '1' } }) };
}

$('shot-file').addEventListener('change', async (event) => {
  const files = [...event.target.files];
  event.target.value = '';
  const room = MAX_SCREENSHOTS - screenshots.length;
  setStatus($('shot-status'), 'done', files.length > room ? t('form.tooManyShots', { max: MAX_SCREENSHOTS }) : '');
  await Promise.all(
    files.slice(0, room).map(async (file) => {
      const shot = { state: 'uploading', img: h('img', { alt: '' }), progress: h('progress', { max: 100, value: 0, 'aria-label': t('field.uploading') }) };
      localPreview(file, shot.img);
      screenshots.push(shot);
      renderShots();
      try {
        const data = await upload(file, shot.progress);
        Object.assign(shot, { state: 'done', value: { url: data.url, webpUrl: data.webpUrl } });
        shot.img.dataset.uploaded = '1';
        shot.img.src = data.webpUrl;
      } catch (error) {
        Object.assign(shot, { state: 'failed', error: error.message });
      }
      renderShots();
    }),
  );
  const done = screenshots.filter((s) => s.state === 'done').length;
  setStatus($('shot-status'), 'done', t('form.shotsReady', { n: done, max: MAX_SCREENSHOTS }));
});

// The ZIP: its SHA-256, computed here (Web Crypto)

async function hashZip(file) {
  const status = $('zip-status');
  if (!file) return;
  if (!/\.zip$/i.test(file.name)) return setStatus(status, 'error', t('form.notZip'));
  setStatus(status, 'loading', t('form.hashing', { name: file.name }));
  try {
    const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
    const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
    $('f-sha256').value = hex;
    showFieldError('sha256', '');
    setStatus(status, 'done', t('form.hashed', { name: file.name }));
  } catch {
    setStatus(status, 'error', t('form.hashFailed'));
  }
}

const drop = $('zip-drop');
drop.addEventListener('dragover', (event) => (event.preventDefault(), drop.classList.add('over')));
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (event) => {
  event.preventDefault();
  drop.classList.remove('over');
  hashZip(event.dataTransfer?.files?.[0]);
});
$('zip-file').addEventListener('change', (event) => hashZip(event.target.files[0]));

// Reading, filling and sending the form

function showFieldError(field, message) {
  const name = field === 'id' || TEXT_FIELDS.includes(field) || field in chips || field === 'screenshots' ? field : null;
  const box = name && $(`f-${name}-error`);
  if (!box) return false;
  box.textContent = message;
  $('f-' + name)?.setAttribute('aria-invalid', String(Boolean(message)));
  return true;
}

function clearErrors() {
  for (const box of form.querySelectorAll('.field-error')) box.textContent = '';
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  $('form-error').hidden = true;
}

function values() {
  const result = {};
  for (const field of TEXT_FIELDS) result[field] = $('f-' + field).value.trim();
  for (const name of Object.keys(chips)) {
    addChips(name, $('f-' + name).value);
    $('f-' + name).value = '';
    result[name] = [...chips[name]];
  }
  result.screenshots = screenshots.filter((s) => s.state === 'done').map((s) => s.value);
  return result;
}

function fill(record) {
  for (const field of TEXT_FIELDS) $('f-' + field).value = record[field] ?? '';
  for (const name of Object.keys(chips)) (chips[name] = [...(record[name] || [])]), renderChips(name);
  screenshots = (record.screenshots || []).map(shotFromValue);
  renderShots();
  $('f-icon').dispatchEvent(new Event('change'));
  $('icon-clear').hidden = !record.icon;
}

/** The body to send: everything for a new plugin; for an edit, what changed. */
function body(current) {
  const out = {};
  for (const [field, value] of Object.entries(current)) {
    const same = initial && JSON.stringify(initial[field] ?? (Array.isArray(value) ? [] : '')) === JSON.stringify(value);
    if (same) continue;
    if (value === '' && CLEARABLE.has(field)) {
      if (initial) out[field] = null;
    } else if (value !== '' || initial) out[field] = value;
  }
  return out;
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearErrors();
  if (screenshots.some((s) => s.state === 'uploading')) return setStatus($('status'), 'error', t('form.waitUploads'));
  const current = values();
  if (!editId) current.id = $('f-id').value.trim();
  const save = $('save');
  save.disabled = true;
  setStatus($('status'), 'loading', t('form.saving'));
  try {
    const answer = editId
      ? await api('/apps/api/plugins/' + encodeURIComponent(editId), { method: 'PATCH', body: body(current) })
      : await api('/apps/api/plugins', { method: 'POST', body: body(current) });
    setStatus($('status'), 'done', t('form.saved'));
    location.assign('/apps/mine?saved=' + encodeURIComponent(answer.plugin.id));
  } catch (error) {
    setStatus($('status'), 'error', t('form.fixErrors'));
    if (error.field && showFieldError(error.field.replace(/[.[].*$/, ''), error.message)) {
      $('f-' + error.field.replace(/[.[].*$/, ''))?.focus();
    } else {
      $('form-error').textContent = errorText(error);
      $('form-error').hidden = false;
      $('form-error').focus?.();
    }
  } finally {
    save.disabled = false;
  }
});

async function start() {
  const { user } = await sessionReady;
  if (!user) {
    setStatus($('status'), 'done', t('form.loginFirst'));
    $('status').append(' ', h('a', { href: loginHref(), text: t('nav.login') }));
    return;
  }
  if (editId) {
    $('form-title').textContent = t('submit.editHeading');
    document.title = t('submit.editHeading');
    $('save').textContent = t('submit.saveEdit');
    $('cancel').href = pluginPath(editId);
    try {
      const { plugin } = await api('/apps/api/plugins/' + encodeURIComponent(editId));
      // An approved plugin's waiting changes are what the author edits further.
      const { submittedAt, ...pending } = plugin.pendingUpdate || {};
      initial = { ...plugin, ...pending };
      fill(initial);
      $('f-id').value = plugin.id;
      $('f-id').disabled = true;
      if (plugin.status === 'approved') setStatus($('status'), 'done', t('form.editApproved'));
    } catch (error) {
      return setStatus($('status'), 'error', error.status === 404 ? t('plugin.notFound') : errorText(error));
    }
  }
  form.hidden = false;
}

start();
