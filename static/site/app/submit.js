// @ts-check
// Submit a plugin (/apps/submit) or edit one (/apps/edit/<id>). The API checks
// every field; its `field` errors are shown next to their field. Images go
// through the media upload. A new plugin comes from its ZIP (its plugin.json fills
// the form, and the ZIP goes with it), or from an outside link. On the edit page,
// a ZIP can be uploaded as a new version the store hosts.
import { sessionReady } from './header.js';
import { $, api, button, enc, FIELDS, RULES, errorText, failed, h, imageUrl, loginFirst, pluginPath, setStatus, t, text, when } from './lib.js';

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

// The ZIP first (issue 31): the store hosts it, and its plugin.json gives the id,
// version, author and permissions. It is read here only to fill the form (the
// server reads it again and decides); without a ZIP, an outside link is the way.
let zip = null;
/** Fields the manifest gives when a ZIP is chosen: shown, not typed. */
const FROM_ZIP = ['id', 'version', 'author', 'permissions'];

/** The store reads no manifest over 64 KiB (the image host's bound): nor is a larger one inflated here, whatever its entry declares. */
const MAX_MANIFEST_BYTES = 64 * 1024;

/**
 * The package's plugin.json (else cwplugin.json), at its root or in the root's only
 * folder, as the launcher finds it: parsed, or null when this browser cannot tell.
 */
async function readManifest(file) {
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const view = new DataView(bytes.buffer);
    const u16 = (at) => view.getUint16(at, true);
    const u32 = (at) => view.getUint32(at, true);
    // The end of central directory record, then each central entry: name -> [method, compressed size, local header offset].
    let end = bytes.length - 22;
    while (end > 0 && u32(end) != 0x06054b50) end--;
    const entries = new Map();
    for (let at = u32(end + 16), n = u16(end + 10); n--; at += 46 + u16(at + 28) + u16(at + 30) + u16(at + 32)) {
      entries.set(new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + u16(at + 28))), [u16(at + 10), u32(at + 20), u32(at + 42)]);
    }
    // Files at the root and folders whose name starts with "." do not count.
    const folders = new Set([...entries.keys()].filter((name) => /^[^./][^/]*\//.test(name)).map((name) => name.split('/')[0] + '/'));
    const name = ['', ...(folders.size == 1 ? folders : [])].flatMap((root) => [root + 'plugin.json', root + 'cwplugin.json']).find((name) => entries.has(name));
    const [method, size, local] = entries.get(name);
    const start = local + 30 + u16(local + 26) + u16(local + 28);
    const data = new Blob([bytes.subarray(start, start + size)]).stream();
    // A few compressed bytes can inflate to gigabytes: read at most the bound, then give up.
    const chunks = [];
    let read = 0;
    // A reader, not for await: Safari's streams are not async iterable.
    const reader = (method == 8 ? data.pipeThrough(new DecompressionStream('deflate-raw')) : data).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if ((read += value.length) > MAX_MANIFEST_BYTES) {
        reader.cancel();
        return null;
      }
      chunks.push(value);
    }
    const json = JSON.parse(await new Blob(chunks).text());
    return json && typeof json == 'object' && !Array.isArray(json) ? json : null;
  } catch {
    return null;
  }
}

/** A drop zone and its file input: `use(file)` for the file chosen or dropped. */
function dropZone(drop, input, use) {
  drop.ondragover = (event) => (event.preventDefault(), drop.classList.add('over'));
  drop.ondragleave = () => drop.classList.remove('over');
  drop.ondrop = (event) => {
    event.preventDefault();
    drop.classList.remove('over');
    use(event.dataTransfer?.files?.[0]);
  };
  input.onchange = () => use(input.files[0]);
}

/** Puts the form in the ZIP's way (`file`) or the outside link's (null). */
function useZip(file) {
  zip = file;
  for (const field of FROM_ZIP) $('f-' + field).disabled = !!file;
  $('zip-clear').hidden = !file;
  $('link-way').hidden = !!file;
  text('f-permissions-hint', t(file ? 'field.permissionsZip' : 'field.permissionsHint'));
  if (!file) setStatus($('zip-status'), 'done', '');
}

dropZone($('zip-drop'), $('zip-file'), async (file) => {
  if (!file) return;
  showFieldError('file', '');
  if (!/\.zip$/i.test(file.name)) return showFieldError('file', t('form.notZip'));
  useZip(file);
  const manifest = await readManifest(file);
  // Another ZIP chosen meanwhile fills the form itself.
  if (zip !== file) return;
  const said = (value) => (typeof value == 'string' || typeof value == 'number' ? String(value) : '');
  // What the package says replaces the form's; a name or description it lacks stays as typed.
  for (const field of ['id', 'name', 'version', 'author', 'description']) if (FROM_ZIP.includes(field) || said(manifest?.[field])) $('f-' + field).value = said(manifest?.[field]);
  chips.permissions = Array.isArray(manifest?.permissions) ? manifest.permissions.filter((p) => typeof p == 'string') : [];
  renderChips('permissions');
  setStatus($('zip-status'), 'done', t(manifest ? 'form.zipRead' : 'form.zipUnread', { name: file.name }));
});
$('zip-clear').onclick = () => {
  $('zip-file').value = '';
  useZip(null);
  $('zip-file').focus();
};

// Reading, filling and sending the form

function showFieldError(name, message) {
  // Only the form's fields have an error line; anything else is said at the top.
  const box = $(`f-${name}-error`);
  if (!box) return false;
  box.textContent = message;
  // The outside link's fields are folded away until needed.
  const folded = box.closest('details');
  if (message && folded) folded.open = true;
  fieldInput(name)?.setAttribute('aria-invalid', String(!!message));
  return true;
}

/** The control a field's error is about: the ZIP's is its file input. */
const fieldInput = (name) => $(name == 'file' ? 'zip-file' : 'f-' + name);

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
  // A new plugin comes from its ZIP or an outside link: with neither, the ZIP (the first way) says so.
  if (!editId && !zip && !current.download) {
    showFieldError('file', t('form.zipOrLink'));
    return $('zip-file').focus();
  }
  const save = $('save');
  save.disabled = true;
  setStatus(status, 'loading', t('form.saving'));
  try {
    const { plugin } = zip ? await sendZip(current) : await api(editId ? pluginApi : '/apps/api/plugins', body(current), editId ? 'PATCH' : 'POST');
    setStatus(status, 'done', t('form.saved'));
    location.assign('/apps/mine?saved=' + enc(plugin.id));
  } catch (error) {
    setStatus(status, 'error', t('form.fixErrors'));
    const field = error.field?.replace(/[.[].*$/, '');
    // A missing field is said in the page's language, not the API's English.
    if (field && showFieldError(field, / is required$/.test(error.message) ? t('form.required') : zipRefusal(error))) (zip && FROM_ZIP.includes(field) ? $('zip-file') : fieldInput(field))?.focus();
    else Object.assign($('form-error'), { textContent: errorText(error), hidden: false });
  }
  save.disabled = false;
};

/** A new plugin from its ZIP: multipart, the package's manifest giving what the form does not send. */
async function sendZip(current) {
  const parts = new FormData();
  for (const [field, value] of Object.entries(body(current))) {
    if (FROM_ZIP.includes(field) || field == 'download' || field == 'sha256') continue;
    // Tags and screenshots: one part each, a screenshot's {url, webpUrl} as JSON.
    for (const one of [value].flat()) parts.append(field, typeof one == 'string' ? one : JSON.stringify(one));
  }
  parts.append('file', zip, zip.name);
  const progress = Object.assign($('f-progress'), { hidden: false, value: 0 });
  try {
    return await sendForm('/apps/api/plugins', parts, progress);
  } finally {
    progress.hidden = true;
  }
}

/** What the API said, a refused package's reason without its own prefixes (the page says "this ZIP cannot be accepted"). */
const zipRefusal = (error) =>
  error.field == 'file' ? t('upload.badZip', { reason: String(error.message).replace(/^(Not an acceptable package|The launcher would not install this package): /, '') }) : error.message;

// A new version: the ZIP and its changelog (its number is the package's), pending until approved.
const versionForm = $('version-form');
const versionStatus = $('v-status');
let versionFile = null;
dropZone($('v-drop'), $('v-file'), (file) => {
  versionFile = file;
  text('v-file-name', file?.name || '');
});
/** Says `message` under field `name` of the version form. */
const versionError = (name, message) => {
  $('v-' + name + '-error').textContent = message;
  $(name == 'version' ? 'v-file' : 'v-' + name).setAttribute('aria-invalid', 'true');
  $('v-' + name).focus();
};
versionForm.onsubmit = async (event) => {
  event.preventDefault();
  for (const box of versionForm.querySelectorAll('.field-error')) box.textContent = '';
  for (const input of versionForm.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  versionStatus.classList.remove('notice');
  const file = versionFile;
  const notes = $('v-changelog').value;
  if (!file) return versionError('file', t('upload.pickZip'));
  if (!/\.zip$/i.test(file.name)) return versionError('file', t('form.notZip'));
  const max = RULES.maxLength.changelog;
  if ([...notes].length > max) return versionError('changelog', t('form.tooLong', { max }));
  const body = new FormData();
  body.append('changelog', notes);
  body.append('file', file, file.name);
  const progress = Object.assign($('v-progress'), { hidden: false, value: 0 });
  $('v-send').disabled = true;
  setStatus(versionStatus, 'loading', t('upload.sending', { name: file.name }));
  try {
    const answer = await sendForm(pluginApi + '/versions', body, progress);
    setStatus(versionStatus, 'done', t('upload.pending', answer.version));
    versionStatus.classList.add('notice');
    versionForm.dataset.version = answer.version.version;
    versionForm.reset();
    versionFile = null;
    text('v-file-name', '');
    loadVersions();
  } catch (error) {
    // The number comes from the package: said at the file.
    const field = error.field == 'changelog' ? 'changelog' : error.status == 409 || error.status == 413 || /^(file|version)$/.test(error.field) ? 'file' : '';
    const message = error.status == 409 ? t('upload.versionTaken') : error.status == 413 ? t('upload.tooBig') : zipRefusal(error);
    setStatus(versionStatus, 'error', field ? t('form.fixErrors') : errorText(error));
    if (field) versionError(field, message);
  }
  progress.hidden = true;
  $('v-send').disabled = false;
};

// The plugin's versions, each pending or live one with Withdraw (after a confirmation).
async function loadVersions() {
  const list = $('v-list');
  const listStatus = $('v-list-status');
  try {
    const { versions } = await api(pluginApi + '/versions');
    list.replaceChildren(
      ...versions.map((v) => {
        const live = v.status == 'approved';
        const withdraw = /^(pending|approved)$/.test(v.status) && button('secondary danger', t('versions.withdraw'), async () => {
          if (!confirm(t(live ? 'versions.confirmLive' : 'versions.confirm', v))) return;
          try {
            await api(`${pluginApi}/versions/${enc(v.version)}/withdraw`, {});
            await loadVersions();
            setStatus(listStatus, 'done', t('versions.withdrawn', v));
          } catch (error) {
            failed(listStatus, error);
          }
        }, { 'aria-label': t('versions.withdrawNamed', v) });
        return h('li.row-item', { dataset: { version: v.version, status: v.status } }, h('div.row-head', {}, h('strong.grow', { text: t('versions.named', v) }), h('span.badge.' + v.status, { text: t('status.' + v.status) }), when(v.createdAt), withdraw));
      }),
    );
    $('v-section').hidden = !versions.length;
  } catch (error) {
    failed(listStatus, error);
  }
}

async function start() {
  const { user } = await sessionReady;
  if (!user) return loginFirst(status);
  if (editId) {
    document.title = t('submit.editHeading');
    text('form-title', document.title);
    text('save', t('submit.saveEdit'));
    // An edit changes the fields; a new version comes by the upload below.
    $('zip-field').hidden = true;
    // The download is one field among the others, where it was before the ZIP came first.
    const link = $('link-way');
    link.open = true;
    link.querySelector('summary').hidden = true;
    $('f-url').closest('.field').before(link);
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
      // Its version changes by uploading one (below), not by typing it.
      $('f-version').disabled = true;
      $('f-version-hint').hidden = false;
      loadVersions();
      if (plugin.status === 'approved') setStatus(status, 'done', t('form.editApproved'));
      versionForm.hidden = false;
    } catch (error) {
      return setStatus(status, 'error', error.status === 404 ? t('plugin.notFound') : errorText(error));
    }
  }
  form.hidden = false;
}

start();
