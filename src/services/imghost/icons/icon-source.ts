import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isIconFileName } from './icon-name.js';

// Where icons come from: ICONS_DIR, or the Tabler set shipped in node_modules.
// A scan returns file name → absolute path; only names in that map are ever opened.
// Only regular files count: a symbolic link could point outside the folder.

export interface IconSource {
  /** Folders whose changes mean the list must be read again. */
  folders: string[];
  /** Throws when a folder cannot be read. */
  scan(): Promise<Map<string, string>>;
}

export function folderIconSource(dir: string): IconSource {
  return { folders: [dir], scan: () => scanFolder(dir, (name) => name) };
}

/**
 * The Tabler set (MIT): `icons/outline/*.svg` under their own names, and
 * `icons/filled/*.svg` as `<name>-filled.svg`, except where an outline icon already
 * has that name (none does in Tabler 3; outline would win). Found through the
 * package's own `exports` map, so it works wherever npm put the package; the
 * package exports no package.json, hence a probe file name inside the folder.
 */
export function builtInIconSource(): IconSource {
  const outline = packageFolder('@tabler/icons/outline/probe.svg');
  const filled = packageFolder('@tabler/icons/filled/probe.svg');
  return {
    folders: [outline, filled],
    scan: async () => {
      const icons = await scanFolder(outline, (name) => name);
      for (const [name, path] of await scanFolder(filled, (name) => name.slice(0, -'.svg'.length) + '-filled.svg')) {
        if (!icons.has(name)) icons.set(name, path);
      }
      return icons;
    },
  };
}

function packageFolder(probe: string): string {
  return dirname(fileURLToPath(import.meta.resolve(probe)));
}

async function scanFolder(dir: string, publicName: (fileName: string) => string): Promise<Map<string, string>> {
  const icons = new Map<string, string>();
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const name = publicName(entry.name);
    if (isIconFileName(entry.name) && isIconFileName(name)) icons.set(name, join(dir, entry.name));
  }
  return icons;
}
