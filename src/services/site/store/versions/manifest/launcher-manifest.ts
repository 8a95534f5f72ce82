import { validationFailed, type HttpError } from '../../../../../http/errors.js';
import { own } from '../../../../../lib/json-object.js';
import { LIMITS } from '../../validation.js';
import { codePointLength } from '../../../text-rules.js';
import { entryKindOf, entryOf, type Entry, type EntryKind } from './entry.js';
import type { PackageReport } from '../../../image-host/package-report.js';
import { declaredPermissions, inferredPermissions, withRisk, type Permission } from './permissions.js';
import { pythonStrip } from './python-strip.js';
import { truthy } from './python-truth.js';

// A package's manifest read as the Bloret launcher reads it (BloretCrew/
// Bloret-Launcher, modules/plugin.py install_plugin_from_path and
// modules/plugin_host/manifest.py normalize_manifest), and refused when the launcher
// would install something other than this plugin, or when the store could not
// hold what it says. The image host found the file (plugin.json, else
// cwplugin.json, at the root or in the one folder that is the root's only entry);
// this reads its fields.

/** The manifest kept with a version (sql/007), the shape the API shows. */
export interface LauncherManifest {
  id: string;
  name: string;
  version: string;
  author: string;
  description: string;
  entry: Entry;
  /** Declared (trimmed, duplicates dropped, order kept), else inferred. */
  permissions: string[];
  min_launcher_version: string | null;
}

export interface ReadManifest {
  manifest: LauncherManifest;
  permissions: Permission[];
  entryKind: EntryKind;
}

/** The launcher's id rule (plugin_install_request.py _ID_RE, plugin_store.py normalize_listing). */
const LAUNCHER_ID = /^[a-zA-Z0-9._-]{1,128}$/;
/** Permission ids the store can hold (plugins.permissions, sql/002): no commas or white space. */
const SEPARATOR = /[,，\s]/;
const MAX_VERSION = 64;
/** Names Windows opens as a device, whatever follows the dot. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/i;

/**
 * Why the launcher would not install plugin `id` into Plugin/<id>, or null. Its
 * folder name is _safe_plugin_id(id), which strips leading and trailing dashes
 * ("minimap-" installs into, and replaces, Plugin/minimap); Windows drops a
 * name's trailing dots ("minimap." is Plugin\minimap there) and opens a device
 * for NUL, CON...; and the launcher keeps its own folders beside the plugins,
 * .backups and .<id>.installing, so an id starting with a dot may be one of them.
 */
function folderProblem(id: string): string | null {
  if (id.startsWith('-') || id.endsWith('-')) return `the launcher drops a leading or trailing dash and would install it into ${quoted(`Plugin/${id.replace(/^-+|-+$/g, '')}`)}, another plugin's folder`;
  if (id.endsWith('.')) return 'Windows drops a folder name\'s trailing dots, so the launcher there would install it into another plugin\'s folder';
  if (id.startsWith('.')) return 'the launcher keeps its own folders (.backups, .<id>.installing) under names starting with a dot';
  if (WINDOWS_DEVICE.test(id)) return 'Windows opens a device for that name instead of a folder';
  return null;
}

const refuse = (message: string): HttpError => validationFailed('file', message);
/** A value of the author's quoted in a message: JSON-escaped, and cut. */
const quoted = (value: string): string => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);

/** str(value or ""), for the fields the launcher only shows: strings as they are, numbers as written, nothing else. */
function shown(value: unknown): string | null {
  if (!truthy(value)) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/**
 * The manifest of `report` for plugin `storeId`: 400 VALIDATION_FAILED, field
 * "file", with the reason, when there is none (the image host says why), or it has
 * no id, name or version, an id the launcher refuses or another plugin's id, a
 * version the store cannot number, or permissions the store cannot hold.
 */
export function readManifest(report: PackageReport, storeId: string): ReadManifest {
  if (report.manifest === null) throw refuse(`The launcher would not install this package: ${report.manifestProblem ?? 'it has no plugin.json'}`);
  const { path, json } = report.manifest;

  // The launcher installs into Plugin/<id> (id trimmed, `or` a fallback name: a
  // missing id would install under the store's display name) and matches installed
  // plugins to store items by exact id (plugin_store.py merge_install_state): an id
  // differing even in case is another plugin to it, and on Windows the same folder.
  const rawId = own(json, 'id');
  if (!truthy(rawId)) throw refuse(`${path} has no "id": the launcher installs a plugin into the folder its id names`);
  if (typeof rawId !== 'string') throw refuse(`${path}'s "id" must be a string`);
  const id = pythonStrip(rawId);
  if (!LAUNCHER_ID.test(id)) throw refuse(`${path}'s "id" ${quoted(id)} is not 1 to 128 letters, digits, dots, dashes and underscores, which the launcher requires`);
  if (id !== storeId) {
    throw refuse(`${path} names the plugin ${quoted(id)}, not ${quoted(storeId)}: the launcher would install it as ${quoted(id)}, not as this plugin`);
  }
  const folder = folderProblem(id);
  if (folder !== null) throw refuse(`${path}'s "id" ${quoted(id)} cannot be installed as this plugin: ${folder}`);

  const name = shown(own(json, 'name'))?.trim() ?? '';
  if (name === '') throw refuse(`${path} has no "name"`);
  const rawVersion = own(json, 'version');
  if (!truthy(rawVersion)) throw refuse(`${path} has no "version"`);
  if (typeof rawVersion !== 'string') throw refuse(`${path}'s "version" must be a string, such as "1.2.0"`);
  const version = rawVersion.trim();
  if (version === '' || version.includes('\u0000') || codePointLength(version) > MAX_VERSION) {
    throw refuse(`${path}'s "version" must be 1 to ${MAX_VERSION} characters`);
  }

  const declared = declaredPermissions(own(json, 'permissions'));
  if ('problem' in declared) throw refuse(`${path}: ${declared.problem}`);
  const ids = declared.ids.length > 0 ? declared.ids : inferredPermissions(json);
  if (ids.length > LIMITS.permissions.maxItems) throw refuse(`${path} asks for ${ids.length} permissions; the store lists at most ${LIMITS.permissions.maxItems}`);
  for (const permission of ids) {
    if (SEPARATOR.test(permission) || permission.includes('\u0000') || codePointLength(permission) > LIMITS.permissions.maxLength) {
      throw refuse(`${path}'s permission ${quoted(permission)} is not a permission id (at most ${LIMITS.permissions.maxLength} characters, no commas or spaces)`);
    }
  }

  const root = path.slice(0, path.lastIndexOf('/') + 1);
  const entry = entryOf(json, report.files.map((file) => file.name), root);
  const manifest: LauncherManifest = {
    id,
    name,
    version,
    author: shown(own(json, 'author')) ?? shown(own(json, 'master')) ?? '',
    description: shown(own(json, 'description')) ?? '',
    entry,
    permissions: ids,
    min_launcher_version: shown(own(json, 'min_launcher_version'))?.trim() || null,
  };
  return { manifest, permissions: withRisk(ids), entryKind: entryKindOf(entry) };
}
