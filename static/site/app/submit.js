// @ts-check
// Submit a plugin (/apps/submit) or edit one (/apps/edit/<id>). The API checks
// every field; its `field` errors are shown next to their field. Images go
// through the media upload; the SHA-256 is computed here from the ZIP itself. On
// the edit page, a ZIP can also be uploaded as a new version the store hosts.
import { sessionReady } from './header.js';
import { $, api, button, enc, FIELDS, RULES, errorText, h, imageUrl, loginFirst, pluginPath, setStatus, t, text } from './lib.js';

const MAX_SCREENSHOTS = RULES.maxScreenshots;
const MAX_IMAGE_BYTES = RULES.maxImageBytes;
const TEXT_FIELDS = FIELDS.slice(0, 9);
/** Optional links: an emptied field clears them (the API takes null). */
const CLEARABLE = ['sha256', 'url', 'icon'];

const form = $('plugin-form');
const editId = location.pathname.startsWith('/apps/edit/') && decodeURIComponent(location.pathname.slice(11));
const chips = { tags: [], permissions: [] };
let screenshots = [];
let initial = null;

// Chips (tags, permissions)

function renderChips(name) {
  const remove = (i) => () => (chips[name].splice(i, 1), renderChips(name), $('f-' + name).focus());
  $(name + '-chips').replaceChildren(...chips[name].map((value, i) => h('li.chip', {}, h('span', { text: value }), button('', '×', remove(i), { 'aria-label': t('form.removeChip', { value }) }))));
}

function addChips(name, text) {
  for (const value of text.split(/[,，\s]+/).map((v) => v.trim()).filter(Boolean)) {
    if (!chips[name].some((v) => v.toLowerCase() === value.toLowerCase())) chips[name].push(value);
  }
  renderChips(name);
}

for (const name in chips) {
  const input = $('f-' + name);
  const add = () => {
    addChips(name, input.value);
    input.value = '';
  };
  input.onkeydown = (event) => {
    if (event.key === 'Enter' || event.key === ',') {
      event.preventDefault();
      add();
    } else if (event.key === 'Backspace' && !input.value && chips[name].length) {
      chips[name].pop();
      renderChips(name);
    }
  };
  input.onblur = add;
}

// Uploads through /apps/api/media/upload, with progress

/** A form POSTed to `path`, its progress in `progress`: the answer, or a failure with the API's status, code and field. */
function sendForm(path, body, progress) {
  return new Promise((resolve, reject) => {
    // XMLHttpRequest: fetch reports no upload progress.
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.responseType = 'json';
    xhr.upload.onprogress = (event) => event.lengthComputable && (progress.value = (100 * event.loaded) / event.total);
    const fail = (status, answer) => reject(Object.assign(new Error(answer?.error || t('error.server')), { status, code: answer?.code || (status ? '' : 'NETWORK'), field: answer?.field }));
    xhr.onload = () => (xhr.status < 300 && xhr.response?.success ? resolve(xhr.response) : fail(xhr.status, xhr.response));
    xhr.onerror = () => fail(0, { error: t('error.network') });
    xhr.send(body);
  });
}

function upload(file, progress) {
  if (file.size > MAX_IMAGE_BYTES) return Promise.reject(new Error(t('form.imageTooBig')));
  const body = new FormData();
  body.append('image', file, file.name);
  // An image host on http (npm start) is named by the site's /img/ path, which redirects there: plugin images must be https or in-site.
  const local = (url) => (url?.startsWith('http:') ? new URL(url).pathname : url);
  return sendForm('/apps/api/media/upload', body, progress).then(({ data }) => ({ ...data, url: local(data.url), webpUrl: local(data.webpUrl) }));
}

/** A local preview before the upload ends (a data: URL: the CSP allows no blob: images). */
function localPreview(file, img) {
  const reader = new FileReader();
  reader.onload = () => !img.dataset.uploaded && (img.src = reader.result);
  reader.readAsDataURL(file);
}

$('icon-file').onchange = async (event) => {
  const file = event.target.files[0];
  event.target.value = '';
  if (!file) return;
  const preview = $('icon-preview');
  const progress = $('icon-progress');
  preview.hidden = false;
  delete preview.dataset.uploaded;
  localPreview(file, preview);
  Object.assign(progress, { hidden: false, value: 0 });
  showFieldError('icon', '');
  try {
    const { url } = await upload(file, progress);
    $('f-icon').value = preview.src = url;
    preview.dataset.uploaded = '1';
    $('icon-clear').hidden = false;
  } catch (error) {
    showFieldError('icon', error.message);
  }
  progress.hidden = true;
};
$('icon-clear').onclick = () => ($('f-icon').value = '', ($('icon-preview').hidden = $('icon-clear').hidden = true));
$('f-icon').onchange = () => {
  const src = imageUrl($('f-icon').value.trim());
  Object.assign($('icon-preview'), src ? { src, hidden: false } : { hidden: true });
};

function renderShots() {
  $('shot-list').replaceChildren(
    ...screenshots.map((shot, i) => {
      const move = (delta) => () => {
        const [item] = screenshots.splice(i, 1);
        screenshots.splice(i + delta, 0, item);
        renderShots();
        $('shot-list').children[i + delta]?.querySelector(delta < 0 ? '.up' : '.down')?.focus();
      };
      const n = { n: i + 1 };
      return h('li', { dataset: { state: shot.state } }, shot.img, h('span.muted', { text: t('form.shotLabel', n) }),
        shot.state === 'uploading' && shot.progress, shot.error && h('span.error', { text: shot.error }),
        button('ghost up', '↑', move(-1), { disabled: !i, 'aria-label': t('form.moveUp', n) }),
        button('ghost down', '↓', move(1), { disabled: i === screenshots.length - 1, 'aria-label': t('form.moveDown', n) }),
        button('ghost danger', t('field.remove'), () => {
          screenshots.splice(i, 1);
          renderShots();
        }, { 'aria-label': t('form.removeShot', n) }));
    }),
  );
  $('shot-file').disabled = screenshots.length >= MAX_SCREENSHOTS;
}

const shotFromValue = (value) => ({ state: 'done', value, img: h('img', { src: imageUrl(value?.webpUrl) || imageUrl(value?.url ?? value) || '', alt: '', dataset: { uploaded: '1' } }) });

$('shot-file').onchange = async (event) => {
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
        const { url, webpUrl } = await upload(file, shot.progress);
        Object.assign(shot, { state: 'done', value: { url, webpUrl } });
        shot.img.dataset.uploaded = '1';
        shot.img.src = webpUrl;
      } catch (error) {
        Object.assign(shot, { state: 'failed', error: error.message });
      }
      renderShots();
    }),
  );
  setStatus($('shot-status'), 'done', t('form.shotsReady', { n: doneShots().length, max: MAX_SCREENSHOTS }));
};
const doneShots = () => screenshots.filter((s) => s.state === 'done').map((s) => s.value);

// The ZIP: its SHA-256, computed here (Web Crypto)

async function hashZip(file) {
  const status = $('zip-status');
  if (!file) return;
  if (!/\.zip$/i.test(file.name)) return setStatus(status, 'error', t('form.notZip'));
  setStatus(status, 'loading', t('form.hashing', { name: file.name }));
  try {
    const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
    $('f-sha256').value = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
    showFieldError('sha256', '');
    setStatus(status, 'done', t('form.hashed', { name: file.name }));
  } catch {
    setStatus(status, 'error', t('form.hashFailed'));
  }
}

const drop = $('zip-drop');
drop.ondragover = (event) => (event.preventDefault(), drop.classList.add('over'));
drop.ondragleave = () => drop.classList.remove('over');
drop.ondrop = (event) => {
  event.preventDefault();
  drop.classList.remove('over');
  hashZip(event.dataTransfer?.files?.[0]);
};
$('zip-file').onchange = (event) => hashZip(event.target.files[0]);

// Reading, filling and sending the form

function showFieldError(name, message) {
  // Only the form's fields have an error line; anything else is said at the top.
  const box = $(`f-${name}-error`);
  if (!box) return false;
  box.textContent = message;
  $('f-' + name)?.setAttribute('aria-invalid', String(!!message));
  return true;
}

function clearErrors() {
  for (const box of form.querySelectorAll('.field-error')) box.textContent = '';
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  $('form-error').hidden = true;
}

function values() {
  const result = { screenshots: doneShots() };
  for (const field of TEXT_FIELDS) result[field] = $('f-' + field).value.trim();
  for (const name in chips) {
    addChips(name, $('f-' + name).value);
    $('f-' + name).value = '';
    result[name] = [...chips[name]];
  }
  return result;
}

function fill(record) {
  for (const field of TEXT_FIELDS) $('f-' + field).value = record[field] ?? '';
  for (const name in chips) {
    chips[name] = [...(record[name] || [])];
    renderChips(name);
  }
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
    // An emptied optional link is null (cleared) in an edit, absent in a new plugin.
    if (!same && (value !== '' || initial)) out[field] = value === '' && CLEARABLE.includes(field) ? null : value;
  }
  return out;
}

const status = $('status');
const pluginApi = '/apps/api/plugins/' + enc(editId);
form.onsubmit = async (event) => {
  event.preventDefault();
  clearErrors();
  if (screenshots.some((s) => s.state === 'uploading')) return setStatus(status, 'error', t('form.waitUploads'));
  const current = values();
  if (!editId) current.id = $('f-id').value.trim();
  const save = $('save');
  save.disabled = true;
  setStatus(status, 'loading', t('form.saving'));
  try {
    const { plugin } = await api(editId ? pluginApi : '/apps/api/plugins', body(current), editId ? 'PATCH' : 'POST');
    setStatus(status, 'done', t('form.saved'));
    location.assign('/apps/mine?saved=' + enc(plugin.id));
  } catch (error) {
    setStatus(status, 'error', t('form.fixErrors'));
    const field = error.field?.replace(/[.[].*$/, '');
    // A missing field is said in the page's language, not the API's English.
    if (field && showFieldError(field, / is required$/.test(error.message) ? t('form.required') : error.message)) $('f-' + field)?.focus();
    else Object.assign($('form-error'), { textContent: errorText(error), hidden: false });
  }
  save.disabled = false;
};

// A new version: the ZIP, its number and changelog, sent to the store (which
// hosts the file) with a progress bar; pending until an administrator approves it.
const versionForm = $('version-form');
const versionStatus = $('v-status');
/** Says `key`'s string under field `name` of the version form; true when there was one. */
const versionError = (name, key, vars) => (($('v-' + name + '-error').textContent = t(key, vars)), $('v-' + name).setAttribute('aria-invalid', 'true'), $('v-' + name).focus(), true);
versionForm.onsubmit = async (event) => {
  event.preventDefault();
  for (const box of versionForm.querySelectorAll('.field-error')) box.textContent = '';
  for (const input of versionForm.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  const file = $('v-file').files[0];
  const version = $('v-version').value.trim();
  const notes = $('v-changelog').value;
  if (!file) return versionError('file', 'upload.pickZip');
  if (!/\.zip$/i.test(file.name)) return versionError('file', 'form.notZip');
  if (!version) return versionError('version', 'upload.versionRequired');
  const max = RULES.maxLength.changelog;
  if ([...notes].length > max) return versionError('changelog', 'form.tooLong', { max });
  const body = new FormData();
  body.append('version', version);
  body.append('changelog', notes);
  body.append('file', file, file.name);
  const progress = Object.assign($('v-progress'), { hidden: false, value: 0 });
  $('v-send').disabled = true;
  setStatus(versionStatus, 'loading', t('upload.sending', { name: file.name }));
  try {
    const answer = await sendForm(pluginApi + '/versions', body, progress);
    setStatus(versionStatus, 'done', t('upload.pending', answer.version));
    versionForm.dataset.version = answer.version.version;
    versionForm.reset();
  } catch (error) {
    const field = error.field === 'version' ? 'version' : error.field === 'changelog' ? 'changelog' : error.status === 413 || error.field === 'file' ? 'file' : '';
    const key = error.status === 409 ? 'upload.versionTaken' : error.status === 413 ? 'upload.tooBig' : error.field === 'file' ? 'upload.badZip' : 'upload.refused';
    setStatus(versionStatus, 'error', field ? t('form.fixErrors') : errorText(error));
    // The page says "this ZIP cannot be accepted" itself: the reason without the API's own prefix.
    if (field) versionError(field, key, { reason: String(error.message).replace(/^Not an acceptable package: /, '') });
  }
  progress.hidden = true;
  $('v-send').disabled = false;
};

async function start() {
  const { user } = await sessionReady;
  if (!user) return loginFirst(status);
  if (editId) {
    document.title = t('submit.editHeading');
    text('form-title', document.title);
    text('save', t('submit.saveEdit'));
    $('cancel').href = pluginPath(editId);
    try {
      const { plugin } = await api(pluginApi);
      // An approved plugin's waiting changes are what the author edits further.
      const { submittedAt, ...pending } = plugin.pendingUpdate || {};
      initial = { ...plugin, ...pending };
      fill(initial);
      // The title names the plugin being edited.
      text('form-title', t('submit.editNamed', { name: plugin.name }));
      document.title = t('title.editNamed', { name: plugin.name });
      Object.assign($('f-id'), { value: plugin.id, disabled: true });
      if (plugin.status === 'approved') setStatus(status, 'done', t('form.editApproved'));
      versionForm.hidden = false;
    } catch (error) {
      return setStatus(status, 'error', error.status === 404 ? t('plugin.notFound') : errorText(error));
    }
  }
  form.hidden = false;
}

start();
