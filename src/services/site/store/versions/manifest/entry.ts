import { isObject, own } from '../../../../../lib/json-object.js';
import { truthy } from './python-truth.js';

// What the Bloret launcher runs of a plugin (BloretCrew/Bloret-Launcher,
// modules/plugin_host/manifest.py normalize_manifest, and the loaders beside it):
// a Python entry is imported into the launcher's own process, a process entry is
// a program it registers and starts, a QML page is shown in its window. It
// activates every one the plugin has, so a plugin may have several.

export interface Entry {
  python: string | null;
  process: string | null;
  qml_page: string | null;
}

/** 'python', 'process', 'qml', several joined by '+' in that order, or 'none' (sql/007). */
export type EntryKind = string;

/** The files the launcher looks for when `entry` names none of a kind, in its order. */
const FALLBACKS: Record<keyof Entry, string[]> = {
  python: ['main.py', 'plugin.py'],
  process: ['main.exe', 'main'],
  qml_page: ['main.qml', 'ui/Page.qml', 'ui/page.qml'],
};

/** str(value or ""): a declared path, a number as Python writes an integer, else none. */
function pathOf(value: unknown): string | null {
  if (!truthy(value)) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  return null;
}

/**
 * `entry` as the launcher reads it: a string by its extension (.py Python, .qml a
 * page, anything else a program); an object by its keys (python, process,
 * qml_page or qml); then, for each kind still empty, the first fallback file the
 * plugin's folder holds. `files` are the package's file names and `root` the
 * folder of the manifest ('' or 'Wrapper/'). Names are compared ignoring case, as
 * Windows, where the launcher mostly runs, finds them.
 */
export function entryOf(manifest: Record<string, unknown>, files: readonly string[], root: string): Entry {
  const raw = own(manifest, 'entry');
  const entry: Entry = { python: null, process: null, qml_page: null };
  if (typeof raw === 'string' && raw !== '') {
    const lower = raw.toLowerCase();
    if (lower.endsWith('.py')) entry.python = raw;
    else if (lower.endsWith('.qml')) entry.qml_page = raw;
    else entry.process = raw;
  } else if (isObject(raw)) {
    entry.python = pathOf(own(raw, 'python'));
    entry.process = pathOf(own(raw, 'process'));
    entry.qml_page = pathOf(own(raw, 'qml_page')) ?? pathOf(own(raw, 'qml'));
  }
  const present = new Set(files.filter((name) => name.startsWith(root)).map((name) => name.slice(root.length).toLowerCase()));
  for (const kind of Object.keys(FALLBACKS) as Array<keyof Entry>) {
    if (entry[kind] !== null) continue;
    entry[kind] = FALLBACKS[kind].find((name) => present.has(name.toLowerCase())) ?? null;
  }
  return entry;
}

export function entryKindOf(entry: Entry): EntryKind {
  const kinds = [entry.python && 'python', entry.process && 'process', entry.qml_page && 'qml'].filter((kind): kind is string => typeof kind === 'string');
  return kinds.length === 0 ? 'none' : kinds.join('+');
}

const KIND_WORDS: Record<string, string> = {
  python: 'Python code inside the launcher',
  process: 'a program',
  qml: 'a QML page',
  none: 'nothing (declarations only)',
};

/** 'Python code inside the launcher and a program', for messages. */
export function entryKindWords(kind: EntryKind): string {
  return kind.split('+').map((part) => KIND_WORDS[part] ?? part).join(' and ');
}
