// How the real clients read what the two services answer, re-expressed in
// TypeScript from their public sources (read, not copied) so the tests can hold our
// answers to them. Each reader names the file (and lines or function) it follows;
// where the client throws, the reader throws ClientRefused.
//
// Sources (BloretCrew on GitHub):
// - BloraLauncher (Dart/Flutter), lib/tools/server_info.dart at a2c4dd5,
//   lib/services/plugin_install_server.dart at 6e2da2c
// - Bloret-Launcher (Python/QML), modules/update.py, modules/install.py,
//   modules/plugin_install_request.py, modules/plugin_store.py

/** The client would throw here and drop the whole answer. */
export class ClientRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientRefused';
  }
}

type Json = Record<string, unknown>;

const isMap = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const dartType = (value: unknown) => (Array.isArray(value) ? 'List<dynamic>' : value === null ? 'Null' : typeof value === 'object' ? '_Map<String, dynamic>' : typeof value === 'number' ? (Number.isInteger(value) ? 'int' : 'double') : typeof value === 'boolean' ? 'bool' : 'String');

// ---- BloraLauncher: lib/tools/server_info.dart ------------------------------------
// Every field is `json[key] ?? default` passed to a typed constructor parameter: a
// JSON null or an absent key takes the default; any other value must be exactly of
// the field's type, or Dart throws a TypeError ("'int' is not a subtype of type
// 'String'"), fetchLauncherConfig catches it and the launcher has no config at all.
// Nested objects go through `X.fromJson(Map<String, dynamic>)`: a list, a string or
// `false` there throws. `List<String>.from(list)` throws on any non-string element.

function dartString(json: Json, key: string, path: string): string {
  const value = json[key] ?? '';
  if (typeof value !== 'string') throw new ClientRefused(`${path}${key}: '${dartType(value)}' is not a subtype of type 'String'`);
  return value;
}

function dartBool(json: Json, key: string, path: string): boolean {
  const value = json[key] ?? false;
  if (typeof value !== 'boolean') throw new ClientRefused(`${path}${key}: '${dartType(value)}' is not a subtype of type 'bool'`);
  return value;
}

function dartMap(json: Json, key: string, path: string): Json {
  const value = json[key] ?? {};
  if (!isMap(value)) throw new ClientRefused(`${path}${key}: '${dartType(value)}' is not a subtype of type 'Map<String, dynamic>'`);
  return value;
}

function dartStringList(json: Json, key: string, path: string): string[] {
  const value = json[key] ?? [];
  if (!Array.isArray(value)) throw new ClientRefused(`${path}${key}: '${dartType(value)}' is not a subtype of type 'Iterable<dynamic>'`);
  value.forEach((item, index) => {
    if (typeof item !== 'string') throw new ClientRefused(`${path}${key}[${index}]: '${dartType(item)}' is not a subtype of type 'String'`);
  });
  return [...value];
}

export interface BloraLauncherConfig {
  latestVersion: string;
  description: string;
  newVersionDescription: string;
  beta: { enabled: boolean };
  downloads: { stable: { gitcode: { exe: string; zip: string }; github: { exe: string; zip: string } } };
  blTips: string[];
  activity: { show: boolean; status: string; title: string; description: string; icon: string; time: string; link: string };
}

/** BloraLauncherConfig.fromJson and the classes under it (server_info.dart lines 251-415). */
export function bloraLauncherConfigFromJson(data: unknown): BloraLauncherConfig {
  // fetchLauncherConfig (lines 39-56) hands response.data to fromJson(Map<String, dynamic>).
  if (!isMap(data)) throw new ClientRefused(`'${dartType(data)}' is not a subtype of type 'Map<String, dynamic>'`);
  const platform = (json: Json, path: string) => ({ exe: dartString(json, 'exe', path), zip: dartString(json, 'zip', path) });
  const downloads = dartMap(data, 'downloads', '');
  const stable = dartMap(downloads, 'stable', 'downloads.');
  const activity = dartMap(data, 'activity', '');
  return {
    latestVersion: dartString(data, 'latestVersion', ''),
    description: dartString(data, 'description', ''),
    newVersionDescription: dartString(data, 'newVersionDescription', ''),
    beta: { enabled: dartBool(dartMap(data, 'beta', ''), 'enabled', 'beta.') },
    downloads: {
      stable: {
        gitcode: platform(dartMap(stable, 'gitcode', 'downloads.stable.'), 'downloads.stable.gitcode.'),
        github: platform(dartMap(stable, 'github', 'downloads.stable.'), 'downloads.stable.github.'),
      },
    },
    blTips: dartStringList(data, 'BLTips', ''),
    activity: {
      show: dartBool(activity, 'show', 'activity.'),
      status: dartString(activity, 'status', 'activity.'),
      title: dartString(activity, 'title', 'activity.'),
      description: dartString(activity, 'description', 'activity.'),
      icon: dartString(activity, 'icon', 'activity.'),
      time: dartString(activity, 'time', 'activity.'),
      link: dartString(activity, 'link', 'activity.'),
    },
  };
}

/**
 * BloraLauncher lib/pages/download_page.dart (at 016546f, lines 60-65): when
 * `data['enabled'] == true`, `versions.map((v) => v['version'].toString())`;
 * `v['version']` on anything but a map throws.
 */
export function bloraFastDownloadVersions(data: Json): string[] {
  if (data.enabled !== true) return [];
  const versions = data.versions;
  if (!Array.isArray(versions)) throw new ClientRefused(`versions: '${dartType(versions)}' is not a subtype of type 'List<dynamic>'`);
  return versions.map((v) => {
    if (!isMap(v)) throw new ClientRefused(`versions[]: '${dartType(v)}' has no operator []`);
    if (v.version === undefined || v.version === null) throw new ClientRefused('versions[].version: null has no toString here');
    return String(v.version);
  });
}

// ---- Bloret-Launcher: modules/install.py, fetch_fastdownload_versions -------------

/** `{version: url}` for each entry with both; an entry without `.get` (not a dict) raises and the whole list is lost. */
export function bloretFastDownloadVersions(data: Json): Record<string, string> {
  if (!data.enabled) return {};
  const result: Record<string, string> = {};
  for (const entry of (data.versions as unknown[] | undefined) ?? []) {
    if (!isMap(entry)) throw new ClientRefused(`'${typeof entry}' object has no attribute 'get'`);
    const version = entry.version ?? '';
    const url = entry.url ?? '';
    if (version && url) result[String(version)] = String(url);
  }
  return result;
}

// ---- Bloret-Launcher: modules/update.py (Windows) ----------------------------------

const SHA256 = /^[a-fA-F0-9]{64}$/;

function pyText(value: unknown): string {
  return value ? String(value).trim() : '';
}

/** `_pick_download_url` on Windows: `windows`/`win`/`win32`, then its github/gitcode/url/direct, then flat mirrors. */
function pickDownloadUrlOnWindows(res: Json): string | undefined {
  const downloads = isMap(res.downloads) ? res.downloads : {};
  const stable = downloads.stable;
  if (typeof stable === 'string' && stable.trim()) return stable.trim();
  if (!isMap(stable)) return undefined;
  for (const key of ['windows', 'win', 'win32']) {
    const value = stable[key];
    if (typeof value === 'string' && value.trim()) return value.trim();
    if (isMap(value)) {
      for (const nested of ['github', 'gitcode', 'url', 'direct']) {
        const url = value[nested];
        if (typeof url === 'string' && url.trim()) return url.trim();
      }
    }
  }
  for (const nested of ['gitcode', 'github', 'url', 'direct']) {
    const url = stable[nested];
    if (typeof url === 'string' && url.trim()) return url.trim();
  }
  return undefined;
}

/** `_find_url_metadata`: the first mapping, in document order, holding the exact URL. */
function findUrlMetadata(payload: unknown, url: string): [Json, string] | undefined {
  if (!isMap(payload)) return undefined;
  for (const [key, value] of Object.entries(payload)) {
    if (typeof value === 'string' && value.trim() === url) return [payload, key];
    if (isMap(value)) {
      const direct = value.url || value.direct;
      if (typeof direct === 'string' && direct.trim() === url) return [value, key];
      const found = findUrlMetadata(value, url);
      if (found) return found;
    }
  }
  return undefined;
}

function checkedSha256(text: string): string {
  if (!SHA256.test(text)) throw new ClientRefused('更新 SHA-256 元数据格式无效 (not 64 hex digits)');
  return text;
}

/** `_extract_sha256`: sha256, sha256sum, hashes.sha256, checksums.sha256. */
function extractSha256(payload: unknown): string {
  if (!isMap(payload)) return '';
  const hashes = isMap(payload.hashes) ? payload.hashes : undefined;
  const checksums = isMap(payload.checksums) ? payload.checksums : undefined;
  for (const value of [payload.sha256, payload.sha256sum, hashes?.sha256, checksums?.sha256]) {
    const text = pyText(value).toLowerCase();
    if (text) return checkedSha256(text);
  }
  return '';
}

/** `_extract_bound_sha256`: a hash attached to the selected key of the mapping that held the URL. */
function extractBoundSha256(metadata: Json, selectedKey: string): string {
  const selected = metadata[selectedKey];
  if (isMap(selected)) {
    const digest = extractSha256(selected);
    if (digest) return digest;
  }
  for (const field of ['sha256', 'sha256sum', 'hashes', 'checksums']) {
    const value = metadata[field];
    if (isMap(value)) {
      let candidate = value[selectedKey];
      if (isMap(candidate)) candidate = candidate.sha256;
      const text = pyText(candidate).toLowerCase();
      if (text) return checkedSha256(text);
    }
  }
  return extractSha256(metadata);
}

export interface UpdateArtifact {
  url: string;
  sha256: string;
}

/**
 * `resolve_update_artifact` then the checks of `download_update_artifact` on
 * Windows: https only, and no SHA-256 means "更新服务未提供 SHA-256，已拒绝执行更新包"
 * (the update is refused).
 */
export function bloretWindowsUpdate(res: Json): UpdateArtifact {
  const url = pickDownloadUrlOnWindows(res);
  if (!url) throw new ClientRefused('未找到适用于当前平台的更新下载地址 (no URL)');
  const found = findUrlMetadata(isMap(res.downloads) ? res.downloads.stable : undefined, url);
  const sha256 = found ? extractBoundSha256(found[0], found[1]) : '';
  if (!/^https:/i.test(url)) throw new ClientRefused('更新包仅允许 HTTPS 下载');
  if (!sha256) throw new ClientRefused('更新服务未提供 SHA-256，已拒绝执行更新包');
  return { url, sha256 };
}

// ---- Bloret-Launcher: modules/plugin_install_request.py ---------------------------

/** DEFAULT_TRUSTED_HOSTS: download hosts accepted unless the user configures more. */
export const BLORET_TRUSTED_HOSTS = [
  'github.com', 'www.github.com', 'raw.githubusercontent.com', 'objects.githubusercontent.com',
  'release-assets.githubusercontent.com', 'cdn.jsdelivr.net', 'gitee.com', 'www.gitee.com', 'gitlab.com',
  'www.gitlab.com', 'bloret.com', 'www.bloret.com', 'store.bloret.com', 'api.bloret.com',
];

export interface PluginInstallRequest {
  download: string;
  id: string;
  name: string;
  version: string;
  author: string;
  description: string;
  sha256: string;
  source: string;
  permissions: string[];
}

/** `validate_download_url` with the default trusted hosts: https, and a trusted host or a subdomain of one. */
function validateDownloadUrl(download: string): void {
  let url: URL;
  try {
    url = new URL(download);
  } catch {
    throw new ClientRefused(`无效的 download URL: ${download}`);
  }
  if (url.protocol !== 'https:') throw new ClientRefused(`download 仅允许 https://（当前: ${url.protocol}）`);
  const host = url.hostname.toLowerCase();
  if (!BLORET_TRUSTED_HOSTS.some((trusted) => host === trusted || host.endsWith('.' + trusted))) {
    throw new ClientRefused(`下载主机不在信任列表: ${host}`);
  }
}

/**
 * `parse_install_params`'s permissions: a list (each `str(x).strip()`, blanks
 * dropped), a one-string list read as a string, a JSON string, else a string split
 * on `[,;\s]+`.
 */
function installPermissions(raw: unknown): string[] {
  let value = raw;
  if (Array.isArray(value) && value.length === 1 && typeof value[0] === 'string') value = value[0];
  if (Array.isArray(value)) return value.map((item) => pyStr(item).trim()).filter((item) => item !== '');
  if (typeof value !== 'string' || value.trim() === '') return [];
  const text = value.trim();
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed)) return parsed.map((item) => pyStr(item).trim()).filter((item) => item !== '');
    if (typeof parsed === 'string') return parsed.trim() ? [parsed.trim()] : [];
    return [];
  } catch {
    return text.split(/[,;\s]+/).filter((item) => item !== '');
  }
}

/** Python's str() of a JSON value, as far as these readers need it. */
const pyStr = (value: unknown): string => (value === null ? 'None' : value === true ? 'True' : value === false ? 'False' : typeof value === 'object' ? JSON.stringify(value) : String(value));

/** `parse_install_params`: the same rules for a link's query, the local HTTP body and QML. */
export function bloretInstallParams(params: Record<string, unknown>): PluginInstallRequest {
  const get = (...keys: string[]) => {
    for (const key of keys) {
      if (params[key] !== undefined && params[key] !== null) return pyStr(params[key]).trim();
    }
    return '';
  };
  const download = get('download', 'url', 'zip');
  if (!download) throw new ClientRefused('缺少 download 参数');
  validateDownloadUrl(download);
  const id = get('id', 'plugin_id', 'pluginId');
  if (id && !/^[a-zA-Z0-9._-]{1,128}$/.test(id)) throw new ClientRefused(`无效的插件 id: ${id}`);
  const sha256 = get('sha256', 'hash', 'checksum');
  if (sha256 && !SHA256.test(sha256)) throw new ClientRefused('sha256 必须是 64 位十六进制');
  const source = get('source').toLowerCase();
  const permissions = installPermissions(params.permissions ?? (params.permission || params.perms || []));
  return {
    download,
    id,
    name: get('name', 'title'),
    version: get('version', 'ver'),
    author: get('author', 'master'),
    description: get('description', 'desc', 'summary'),
    sha256: sha256.toLowerCase(),
    source: ['store', 'web', 'file', 'protocol', 'localhost', 'in-app', 'debug'].includes(source) ? source : 'store',
    permissions,
  };
}

// ---- BloraLauncher: lib/services/plugin_install_server.dart ----------------------

export interface BloraProposal {
  name: string;
  version: string;
  author: string;
  description: string;
  permissions: string[];
}

/**
 * `_PluginProposeDialog.build` and its Install button: `payload['manifest'] ??
 * payload`, then `String name = manifest['name'] ?? "Unknown Plugin"` (version
 * "1.0.0", author "Unknown", description ""): any value but a string or null
 * throws; `List<dynamic> permissions = manifest['permissions'] ?? []`, and
 * installing reads them with `List<String>.from`.
 */
export function bloraProposal(payload: unknown): BloraProposal {
  if (!isMap(payload)) throw new ClientRefused(`'${dartType(payload)}' is not a subtype of type 'Map<String, dynamic>'`);
  const manifest = payload.manifest ?? payload;
  if (!isMap(manifest)) throw new ClientRefused(`manifest: '${dartType(manifest)}' is not a subtype of type 'Map<String, dynamic>'`);
  const text = (key: string, fallback: string) => {
    const value = manifest[key] ?? fallback;
    if (typeof value !== 'string') throw new ClientRefused(`${key}: '${dartType(value)}' is not a subtype of type 'String'`);
    return value;
  };
  return {
    name: text('name', 'Unknown Plugin'),
    version: text('version', '1.0.0'),
    author: text('author', 'Unknown'),
    description: text('description', ''),
    permissions: dartStringList(manifest, 'permissions', ''),
  };
}

/** `parse_bloret_url`: `bloret:` + `plugin/install` + a query read like urllib's parse_qs (blank values dropped). */
export function bloretInstallLink(link: string): PluginInstallRequest {
  if (!link.toLowerCase().startsWith('bloret:')) throw new ClientRefused('不是 bloret:// URL');
  const rest = link.slice('bloret:'.length).replace(/^\/+/, '');
  const [pathPart = '', query = ''] = rest.includes('?') ? [rest.slice(0, rest.indexOf('?')), rest.slice(rest.indexOf('?') + 1)] : [rest, ''];
  const path = pathPart.replace(/^\/+|\/+$/g, '').toLowerCase();
  if (!['plugin/install', 'install-plugin', 'install'].includes(path) && !path.startsWith('plugin/install')) {
    throw new ClientRefused(`不支持的 bloret 路径: ${path}`);
  }
  const params: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(query)) {
    if (value !== '' && !(key in params)) params[key] = value;
  }
  return bloretInstallParams(params);
}

// ---- Bloret-Launcher: modules/plugin_store.py ---------------------------------------

/** A relative `icon` is joined to the store API base (`urljoin(api_base + '/', icon.lstrip('/'))`), not to the host. */
export function bloretStoreIcon(icon: string, apiBase: string): string {
  if (!icon || /^[a-z][a-z0-9+.-]*:/i.test(icon)) return icon;
  return new URL(icon.replace(/^\/+/, ''), apiBase.replace(/\/+$/, '') + '/').href;
}

export interface StoreListing {
  id: string;
  download: string;
  icon: string;
  detailUrl: string;
  sha256: string;
  /** `item.get("size") or 0` */
  size: unknown;
  /** `str(item.get("min_launcher") or "")` */
  minLauncher: string;
  /** `item.get("permissions") or []`, a string split on `[,;\s]+` */
  permissions: unknown[];
}

/**
 * `_as_list` (the `plugins` array of the answer) then `normalize_listing` for each:
 * a legal id, a download that passes validate_download_url, the icon joined as
 * above, `detail_url` else `https://launcher.bloret.net/apps/plugin/<id>`. One item
 * that fails raises inside the list comprehension and the refresh fails whole.
 */
export function bloretStoreListing(payload: unknown, apiBase: string): StoreListing[] {
  if (!isMap(payload) || !Array.isArray(payload.plugins)) throw new ClientRefused('商店响应中未找到插件列表');
  return payload.plugins.filter(isMap).map((item) => {
    const id = pyText(item.id);
    if (!/^[a-zA-Z0-9._-]{1,128}$/.test(id)) throw new ClientRefused('插件条目缺少合法 id');
    const download = pyText(item.download || item.download_url);
    if (!download) throw new ClientRefused(`插件 ${id} 缺少 download`);
    validateDownloadUrl(download);
    return {
      id,
      download,
      icon: bloretStoreIcon(pyText(item.icon), apiBase),
      detailUrl: pyText(item.detail_url) || `https://launcher.bloret.net/apps/plugin/${id}`,
      sha256: pyText(item.sha256),
      size: pyTruthy(item.size) ? item.size : 0,
      minLauncher: pyTruthy(item.min_launcher) ? pyStr(item.min_launcher) : '',
      permissions: listingPermissions(item.permissions),
    };
  });
}

/** Python's truth of a JSON value: null, false, 0, "", [] and {} are false. */
function pyTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (isMap(value)) return Object.keys(value).length > 0;
  return Boolean(value);
}

/** normalize_listing's permissions: `item.get("permissions") or []`, a string split on `[,;\s]+`. */
function listingPermissions(value: unknown): unknown[] {
  if (!pyTruthy(value)) return [];
  if (typeof value === 'string') return value.split(/[,;\s]+/).map((item) => item.trim()).filter((item) => item !== '');
  return value as unknown[];
}
