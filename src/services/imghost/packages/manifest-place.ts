// Which entry of a package is its manifest, from the names alone, as the Bloret
// launcher looks for it once the ZIP is unpacked: plugin.json, else the older
// cwplugin.json, at the root; else the same inside the root's only folder, where
// files at the root and folders whose name starts with "." do not count. Where
// the launcher would pick one of two candidates by its order of trying, the
// package is ambiguous to a reviewer, and that is a problem too.

export const MANIFEST_NAMES = ['plugin.json', 'cwplugin.json'] as const;

export type ManifestPlace = { path: string } | { problem: string };

/** `names`: every entry name, in central directory order (folders end in "/"). */
export function placeManifest(names: readonly string[]): ManifestPlace {
  const atRoot = names.filter(isManifestName);
  const folders = topFolders(names);
  const wrapper = folders.length === 1 ? folders[0]! : null;
  const inWrapper = wrapper === null ? [] : names.filter((name) => name.startsWith(`${wrapper}/`) && isManifestName(name.slice(wrapper.length + 1)));
  if (atRoot.length > 0 && inWrapper.length > 0) {
    return { problem: `manifests at two levels, ${quoted([...atRoot, ...inWrapper])}: keep the one at the root or the one in the folder, not both` };
  }
  const found = atRoot.length > 0 ? atRoot : inWrapper;
  if (found.length === 0) return { problem: notFound(names, folders) };
  if (found.length > 1) return { problem: `two manifests, ${quoted(found)}: keep one (plugin.json)` };
  const path = found[0]!;
  const file = path.slice(path.lastIndexOf('/') + 1);
  // Windows and macOS find "Plugin.json" when asked for plugin.json; Linux does not.
  if (!(MANIFEST_NAMES as readonly string[]).includes(file)) {
    return { problem: `"${path}" must be named "${file.toLowerCase()}" in lower case: the launcher on Linux does not find it otherwise` };
  }
  return { path };
}

function isManifestName(name: string): boolean {
  return (MANIFEST_NAMES as readonly string[]).includes(name.toLowerCase());
}

/** The folders at the root the launcher counts: named by any entry below them, not hidden. */
function topFolders(names: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const name of names) {
    const slash = name.indexOf('/');
    if (slash > 0 && !name.startsWith('.')) folders.add(name.slice(0, slash));
  }
  return [...folders];
}

function notFound(names: readonly string[], folders: string[]): string {
  const deeper = names.filter((name) => isManifestName(name.slice(name.lastIndexOf('/') + 1)));
  if (deeper.length === 0) return 'no plugin.json (or cwplugin.json) in the package';
  const first = deeper[0]!;
  let where = `"${first}" is too deep`;
  if (folders.length > 1) {
    const shown = folders.length > 5 ? `${folders.slice(0, 5).map((name) => `"${name}"`).join(', ')} and ${folders.length - 5} more` : quoted(folders);
    where = `the root holds ${folders.length} folders (${shown})`;
  } else if (first.startsWith('.')) {
    where = `"${first}" is in a folder whose name starts with ".", which the launcher skips`;
  }
  return `no plugin.json (or cwplugin.json) at the root or in the root's only folder: ${where}; the launcher looks at the root, or in one folder when it is the only one there`;
}

/** "a"; "a" and "b"; "a", "b" and "c". */
function quoted(names: readonly string[]): string {
  const each = names.map((name) => `"${name}"`);
  return each.length > 1 ? `${each.slice(0, -1).join(', ')} and ${each.at(-1)}` : each.join('');
}
